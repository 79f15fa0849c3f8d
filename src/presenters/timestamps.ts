// Timestamps as the API writes them: ISO 8601 in UTC with milliseconds, character for character
// what Date.prototype.toISOString gives. V8's toISOString is a C++ builtin that formats through
// snprintf, called three times per gig, sixty per page of search results. Arithmetic gives the
// same string in a fraction of its time, and String.fromCharCode makes it one flat string of 24
// characters: a template literal of the pieces was as fast but left a rope of ten strings to
// flatten, allocating many times more (docs/performance.md, Request pipeline).
// tests/spec/timestamps.test.ts holds the two equal over the years this formats itself.

const DAY_MS = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 10000-01-01T00:00:00.000Z: the years written with four digits. */
const FIRST_MS = -62_167_219_200_000;
const END_MS = 253_402_300_800_000;

const ZERO = 48;
const DASH = 45;
const COLON = 58;
/** The character codes of a number's tens and ones digits. */
const tens = (n: number) => ZERO + (((n / 10) | 0) % 10);
const ones = (n: number) => ZERO + (n % 10);

/** `YYYY-MM-DDTHH:mm:ss.sssZ` for a time in milliseconds since the epoch. */
export function isoTimestampOfMs(ms: number): string {
  // Six-digit years and the invalid date (toISOString's RangeError) stay with the builtin.
  if (!(ms >= FIRST_MS && ms < END_MS)) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  // The proleptic Gregorian date of a day number (Howard Hinnant's civil_from_days): eras of
  // 400 years from 0000-03-01, so that a leap day is the last day of its year.
  const fromMarch0000 = days + 719_468;
  const era = Math.floor(fromMarch0000 / 146_097);
  const dayOfEra = fromMarch0000 - era * 146_097;
  const yearOfEra = ((dayOfEra - ((dayOfEra / 1460) | 0) + ((dayOfEra / 36_524) | 0) - ((dayOfEra / 146_096) | 0)) / 365) | 0;
  const dayOfYear = dayOfEra - (365 * yearOfEra + (yearOfEra >> 2) - ((yearOfEra / 100) | 0));
  const monthFromMarch = ((5 * dayOfYear + 2) / 153) | 0;
  const day = dayOfYear - (((153 * monthFromMarch + 2) / 5) | 0) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = (rest / 3_600_000) | 0;
  rest -= hours * 3_600_000;
  const minutes = (rest / 60_000) | 0;
  rest -= minutes * 60_000;
  const seconds = (rest / 1000) | 0;
  const millis = rest - seconds * 1000;
  const century = (year / 100) | 0;
  // biome-ignore format: the parts of the timestamp in the order they are written
  return String.fromCharCode(
    tens(century), ones(century), tens(year), ones(year), DASH, tens(month), ones(month), DASH, tens(day), ones(day),
    84 /* T */, tens(hours), ones(hours), COLON, tens(minutes), ones(minutes), COLON, tens(seconds), ones(seconds),
    46 /* . */, ZERO + ((millis / 100) | 0), tens(millis), ones(millis), 90 /* Z */,
  );
}

/** What `date.toISOString()` answers. */
export const isoTimestamp = (date: Date): string => isoTimestampOfMs(date.getTime());

/** An optional timestamp: null stays null. */
export const isoTimestampOrNull = (date: Date | null | undefined): string | null => (date ? isoTimestampOfMs(date.getTime()) : null);
