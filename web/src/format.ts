// Money, dates and times as the viewer reads them: their locale and their time zone (the browser's).
const moneyFormats = new Map<string, Intl.NumberFormat>();

function moneyFormat(currency: string): Intl.NumberFormat {
  let format = moneyFormats.get(currency);
  if (!format) {
    try {
      format = new Intl.NumberFormat(undefined, { style: 'currency', currency });
    } catch {
      format = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    }
    moneyFormats.set(currency, format);
  }
  return format;
}

/** Integer minor units (cents) of an ISO 4217 currency, e.g. 12000 USD -> "$120.00". */
export function money(cents: number, currency: string): string {
  const format = moneyFormat(currency);
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  const text = format.format(cents / 10 ** digits);
  return format.resolvedOptions().style === 'currency' ? text : `${text} ${currency}`;
}

// (dateStyle and timeStyle cannot be combined with timeZoneName, hence the fields one by one.)
export const DATE_TIME: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  timeZoneName: 'short',
};
const dateTime = new Intl.DateTimeFormat(undefined, DATE_TIME);
/** An RFC 3339 instant in the viewer's time zone, e.g. "Nov 22, 2026, 1:35 AM GMT+1". */
export function when(iso: string): string {
  return dateTime.format(new Date(iso));
}

// A calendar date (YYYY-MM-DD) is the same day everywhere: formatted in UTC so that no zone shifts it.
const calendarDate = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
export function day(date: string): string {
  const parsed = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(parsed.getTime()) ? date : calendarDate.format(parsed);
}

/** "2 d 4 h left", "3 h 12 min left", "40 min left" until `iso` from `now`; "expired" once past. */
export function timeLeft(iso: string, now = Date.now()): string {
  const ms = new Date(iso).getTime() - now;
  if (ms <= 0) return 'expired';
  const minutes = Math.floor(ms / 60_000);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  if (days > 0) return `${days} d ${hours} h left`;
  if (hours > 0) return `${hours} h ${mins} min left`;
  return `${Math.max(mins, 1)} min left`;
}

export const STATUS_LABEL: Record<string, string> = {
  negotiation: 'Back in negotiation',
  pending_owner_approval: 'Awaiting owner approval',
  pending_freelancer_kyc: 'Awaiting worker identity checks',
  active: 'Active',
  completed: 'Completed',
  disputed: 'Disputed',
  cancelled: 'Cancelled',
  expired: 'Expired',
  pending: 'Not funded',
  funding: 'Payment started',
  funded: 'Funded',
  released: 'Released',
  paid: 'Paid',
  refunded: 'Refunded',
};

export const statusLabel = (status: string) => STATUS_LABEL[status] ?? status;

/** The sum of a contract's milestones, in minor units. */
export const totalCents = (milestones: readonly { amount_cents: number }[]) => milestones.reduce((sum, m) => sum + m.amount_cents, 0);
