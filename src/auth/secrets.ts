// Random secrets and their stored form. Secrets are shown once and stored only as SHA-256.
import { hash, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const API_KEY_PREFIX = 'gm_live_';
const API_KEY_RANDOM_LENGTH = 40;
/** What the key list shows: the prefix plus the first characters of the random part. */
const DISPLAY_LENGTH = API_KEY_PREFIX.length + 6;

/** Uniform base62 by rejection sampling (no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** Hex SHA-256 (the one-shot crypto.hash: every authenticated request hashes its key, and it costs half of createHash's). */
export const sha256 = (value: string): string => hash('sha256', value, 'hex');

export function newApiKey(): { secret: string; hash: string; displayPrefix: string } {
  const secret = API_KEY_PREFIX + randomBase62(API_KEY_RANDOM_LENGTH);
  return { secret, hash: sha256(secret), displayPrefix: secret.slice(0, DISPLAY_LENGTH) };
}

export const looksLikeApiKey = (value: string): boolean =>
  value.startsWith(API_KEY_PREFIX) && /^[0-9A-Za-z]{32,}$/.test(value.slice(API_KEY_PREFIX.length));

export const newSessionToken = (): string => randomBytes(32).toString('base64url');
