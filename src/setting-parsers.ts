// How a setting's text becomes a value, and how the settings table shows its default: the kinds
// of setting src/config.ts declares. Each parser takes the variable's text (undefined when unset)
// and its name, and throws, naming the variable, when the text does not parse.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export interface SettingKind<T> {
  /** The default as the settings table shows it (Markdown). */
  default: string;
  parse: (raw: string | undefined, name: string) => T;
}

const shown = (value: string | number) => `\`${value}\``;
const UNSET = '(unset)';

/** Text, `fallback` when unset or empty. */
export function text(fallback: string): SettingKind<string> {
  return { default: shown(fallback), parse: (raw) => raw || fallback };
}

/** Text, undefined when unset or empty; `defaultShown` says what happens then. */
export function optionalText(defaultShown = UNSET): SettingKind<string | undefined> {
  return { default: defaultShown, parse: (raw) => raw || undefined };
}

/** Text with its surrounding white space removed, undefined when nothing is left. */
export function trimmedText(): SettingKind<string | undefined> {
  return { default: UNSET, parse: (raw) => raw?.trim() || undefined };
}

/** A whole number, `fallback` when unset; below `min`, an error saying what it `mustBe` (else "at least {min}"). */
export function integer(fallback: number, options: { min?: number; mustBe?: string; note?: string } = {}): SettingKind<number> {
  const { min, mustBe, note } = options;
  return {
    default: note ? `${shown(fallback)} (${note})` : shown(fallback),
    parse: (raw, name) => {
      if (raw === undefined || raw === '') return fallback;
      const value = Number(raw);
      if (!Number.isInteger(value)) throw new Error(`${name} must be an integer, got "${raw}"`);
      if (min !== undefined && value < min) throw new Error(`${name} must be ${mustBe ?? `at least ${min}`}, got "${raw}"`);
      return value;
    },
  };
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `48h`, `30m`, `90s`, `2d`, `500ms`, or a plain number of seconds, in ms. */
function durationMs(raw: string, name: string): number {
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(raw.trim());
  if (!match) throw new Error(`${name} must be a duration like 48h, 30m or 90s, got "${raw}"`);
  return Number(match[1]) * DURATION_UNITS[match[2] ?? 's']!;
}

/** A duration (see durationMs) in ms, `fallback` when unset; `atLeast` with `mustBe` as its lower bound. */
export function duration(fallback: string, bound?: { atLeastMs: number; mustBe: string }): SettingKind<number> {
  return {
    default: shown(fallback),
    parse: (raw, name) => {
      const value = durationMs(raw || fallback, name);
      if (bound && value < bound.atLeastMs) throw new Error(`${name} must be ${bound.mustBe}, got "${raw}"`);
      return value;
    },
  };
}

/** Comma-separated durations before a deadline (`24h,1h`), largest first; `off` for none. */
export function durationList(fallback: string, most: number): SettingKind<number[]> {
  return {
    default: shown(fallback),
    parse: (given, name) => {
      const raw = (given ?? '').trim();
      if (raw === 'off') return [];
      const parts = (raw || fallback)
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      if (parts.length > most) throw new Error(`${name} takes at most ${most} durations, got "${raw}"`);
      const values = parts.map((p) => durationMs(p, name));
      if (values.some((v) => v < 1000)) throw new Error(`${name} must be durations of at least 1s, like ${fallback}, got "${raw}"`);
      return [...new Set(values)].sort((a, b) => b - a);
    },
  };
}

/** `true`/`1` or `false`/`0`/unset; anything else is a mistake worth stopping for. */
export function flag(): SettingKind<boolean> {
  return {
    default: shown('false'),
    parse: (given, name) => {
      const raw = (given ?? '').trim().toLowerCase();
      if (raw === '' || raw === 'false' || raw === '0') return false;
      if (raw === 'true' || raw === '1') return true;
      throw new Error(`${name} must be true or false, got "${given}"`);
    },
  };
}

/** A comma-separated list of web origins (`https://host[:port]`), each checked and normalised; none when unset. */
export function origins(): SettingKind<string[]> {
  return {
    default: '(none)',
    parse: (raw, name) =>
      (raw ?? '')
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
        .map((item) => {
          let url: URL;
          try {
            url = new URL(item);
          } catch {
            throw new Error(`${name} must be a comma-separated list of origins such as https://app.example.com, got "${item}"`);
          }
          if (!['http:', 'https:'].includes(url.protocol) || url.origin !== item.replace(/\/$/, ''))
            throw new Error(`${name}: "${item}" is not an origin (a scheme, a host and a port, no path)`);
          return url.origin;
        }),
  };
}

/** `on` (or unset) or `off`, as true or false. */
export function onOff(): SettingKind<boolean> {
  return {
    default: shown('on'),
    parse: (given, name) => {
      const raw = (given ?? '').trim();
      if (raw === 'off') return false;
      if (raw !== '' && raw !== 'on') throw new Error(`${name} must be on or off, got "${given}"`);
      return true;
    },
  };
}

/** A Postgres memory setting: a whole number with kB, MB or GB (at least 128kB, as Postgres requires). */
export function memorySize(fallback: string): SettingKind<string> {
  return {
    default: shown(fallback),
    parse: (raw, name) => {
      if (raw === undefined || raw === '') return fallback;
      const match = /^(\d+)(kB|MB|GB)$/.exec(raw);
      const kb = match ? Number(match[1]) * { kB: 1, MB: 1024, GB: 1024 * 1024 }[match[2] as 'kB' | 'MB' | 'GB'] : 0;
      if (kb < 128) throw new Error(`${name} must be a size such as 16MB or 512kB (at least 128kB), got "${raw}"`);
      return raw;
    },
  };
}

/** A number above 0, at most 1; `fallback` when unset. */
export function fraction(fallback: number): SettingKind<number> {
  return {
    default: shown(fallback),
    parse: (raw, name) => {
      if (raw === undefined || raw === '') return fallback;
      const value = Number(raw);
      if (!Number.isFinite(value) || value <= 0 || value > 1) throw new Error(`${name} must be a number above 0, at most 1, got "${raw}"`);
      return value;
    },
  };
}

/** Comma-separated values, each trimmed; none when unset. */
export function commaList(): SettingKind<string[]> {
  return {
    default: UNSET,
    parse: (raw) =>
      (raw ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
  };
}

function protocolOf(raw: string): string | undefined {
  try {
    return new URL(raw).protocol;
  } catch {
    return undefined;
  }
}

/** A URL, undefined when unset: one of `protocols` (any, when none is given), else an error saying what it `mustBe`. */
export function url(options: { protocols?: string[]; mustBe: string; default?: string }): SettingKind<string | undefined> {
  return {
    default: options.default ?? UNSET,
    parse: (raw, name) => {
      if (!raw) return undefined;
      const protocol = protocolOf(raw);
      if (!protocol || (options.protocols && !options.protocols.includes(protocol))) {
        throw new Error(`${name} must be ${options.mustBe}, got "${raw}"`);
      }
      return raw;
    },
  };
}

/** An http(s)://host[:port] without a path (a local fake of an API), undefined when unset. */
export function apiBase(defaultShown: string): SettingKind<{ host: string; port: number; protocol: 'http' | 'https' } | undefined> {
  return {
    default: defaultShown,
    parse: (raw, name) => {
      if (!raw) return undefined;
      let parsed: URL;
      try {
        parsed = new URL(raw);
      } catch {
        throw new Error(`${name} must be a URL, got "${raw}"`);
      }
      const protocol = parsed.protocol.slice(0, -1);
      if ((protocol !== 'http' && protocol !== 'https') || (parsed.pathname !== '/' && parsed.pathname !== '')) {
        throw new Error(`${name} must be http(s)://host[:port] without a path, got "${raw}"`);
      }
      return { host: parsed.hostname, port: Number(parsed.port || (protocol === 'https' ? 443 : 80)), protocol };
    },
  };
}

/** A file that must exist, as an absolute path; undefined when unset. */
export function existingFile(defaultShown: string): SettingKind<string | undefined> {
  return {
    default: defaultShown,
    parse: (raw, name) => {
      if (!raw) return undefined;
      const file = path.resolve(raw);
      if (!fs.existsSync(file)) throw new Error(`${name} points to "${file}", which does not exist`);
      return file;
    },
  };
}

/**
 * Fastify's trustProxy: unset or `false`, X-Forwarded-* is ignored (the client is the socket's
 * peer); `true`, every hop is believed; a number, that many hops; else a comma-separated list of
 * proxy addresses or CIDR ranges (`127.0.0.1,10.0.0.0/8`).
 */
export function proxyTrust(): SettingKind<boolean | number | string[]> {
  return {
    default: `unset (${shown('false')})`,
    parse: (raw, name) => {
      const value = raw?.trim() ?? '';
      if (value === '' || value === 'false') return false;
      if (value === 'true') return true;
      if (/^\d+$/.test(value)) return Number(value);
      const entries = value
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean);
      for (const entry of entries) {
        const [address, bits, extra] = entry.split('/');
        const family = net.isIP(address ?? '');
        const maxBits = family === 6 ? 128 : 32;
        if (!family || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits))) {
          throw new Error(
            `${name} must be true, false, a number of hops or a comma-separated list of addresses or CIDR ranges, got "${raw}"`,
          );
        }
      }
      return entries;
    },
  };
}

/** What an error message may show of SMTP_URL: scheme, user and host; never the password, path or query. */
function redactedUrl(url: URL): string {
  const user = url.username ? `${url.username}${url.password ? ':***' : ''}@` : '';
  return `${url.protocol}//${user}${url.host}`;
}

const SMTP_URL_EXAMPLE = 'smtp://user:password@mail.example.com:587 or smtps://user:password@mail.example.com';

export interface SmtpServer {
  host: string;
  port: number;
  /** smtps://: TLS from the first byte. smtp://: STARTTLS when the server offers it. */
  secure: boolean;
  /** The user and password; `pass` is not enumerable, so a logged or serialized value shows no password. */
  auth: { user: string; pass: string } | undefined;
}

/** smtp://[user:password@]host[:port] or smtps://…, undefined when unset. No message ever shows the password. */
export function smtpUrl(): SettingKind<SmtpServer | undefined> {
  return {
    default: UNSET,
    parse: (given, name) => {
      const raw = given?.trim();
      if (!raw) return undefined;
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        // Neither the value nor URL's own error (it carries the input): where the password ends is unknown.
        throw new Error(
          `${name} must be a URL such as ${SMTP_URL_EXAMPLE} (percent-encode special characters in the user and password); the value set does not parse and is not shown, as it may hold a password`,
        );
      }
      // Only the scheme until the URL is known to have a host: before that, the parser may have read the password as a path.
      if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
        throw new Error(`${name} must start with smtp:// or smtps://, got a URL starting with "${url.protocol}"`);
      }
      if (!url.hostname) throw new Error(`${name} must be smtp://[user:password@]host[:port] or smtps://..., got one without a host`);
      const redacted = redactedUrl(url);
      if ((url.pathname !== '' && url.pathname !== '/') || url.search || url.hash) {
        throw new Error(`${name} takes no path or query (${SMTP_URL_EXAMPLE}), got one after "${redacted}"`);
      }
      let user: string;
      let pass: string;
      try {
        user = decodeURIComponent(url.username);
        pass = decodeURIComponent(url.password);
      } catch {
        throw new Error(`${name}'s user or password is not valid percent-encoding, got "${redacted}"`);
      }
      if (Boolean(user) !== Boolean(pass)) throw new Error(`${name} must have both a user and a password, or neither, got "${redacted}"`);
      let auth: SmtpServer['auth'];
      if (user) {
        auth = { user } as { user: string; pass: string };
        Object.defineProperty(auth, 'pass', { value: pass, enumerable: false });
      }
      const secure = url.protocol === 'smtps:';
      const host = url.hostname.replace(/^\[(.*)\]$/, '$1'); // IPv6 without its brackets
      return { host, port: url.port ? Number(url.port) : secure ? 465 : 587, secure, auth };
    },
  };
}

// An address without quoting or comments: enough for a sender we configure ourselves.
const ADDRESS = /^[^\s@<>()[\]\\,;:"]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

/** `noreply@example.com`, `gigmarket <noreply@example.com>` or `"gigmarket" <noreply@example.com>`; undefined when unset or blank. */
export function mailbox(): SettingKind<{ name: string; address: string } | undefined> {
  return {
    default: UNSET,
    parse: (raw, setting) => {
      const value = raw?.trim();
      if (!value) return undefined;
      const named = /^(?:"([^"]*)"|([^"<>]*?))\s*<([^<>]*)>$/.exec(value);
      const name = named ? (named[1] ?? named[2] ?? '').trim() : '';
      const address = named ? named[3]!.trim() : value;
      // A line break would let the name write headers of its own.
      if (!ADDRESS.test(address) || /[\r\n]/.test(name)) {
        throw new Error(`${setting} must be an address such as noreply@example.com or "gigmarket <noreply@example.com>", got "${raw}"`);
      }
      return { name, address };
    },
  };
}

/** A TCP port (1 to 65535), undefined when unset or empty. */
export function optionalPort(): SettingKind<number | undefined> {
  return {
    default: UNSET,
    parse: (raw, name) => {
      if (raw === undefined || raw.trim() === '') return undefined;
      const value = Number(raw);
      if (!Number.isInteger(value) || value < 1 || value > 65_535) throw new Error(`${name} must be a port from 1 to 65535, got "${raw}"`);
      return value;
    },
  };
}

/** A secret of at least `minLength` characters without white space, undefined when unset or empty; the error never shows it. */
export function secretToken(minLength: number): SettingKind<string | undefined> {
  return {
    default: UNSET,
    parse: (raw, name) => {
      if (!raw) return undefined;
      if (raw.length < minLength || /\s/.test(raw)) {
        throw new Error(`${name} must be at least ${minLength} characters without white space (e.g. \`openssl rand -hex 32\`)`);
      }
      return raw;
    },
  };
}
