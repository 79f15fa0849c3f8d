// Standard Webhooks signatures (https://www.standardwebhooks.com): what a receiver checks with any
// of the libraries the standard publishes, so nobody has to write a verifier for us.
import crypto from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
// 32 bytes: within the standard's recommended 24 to 64, and as many bits as HMAC-SHA256's output.
const SECRET_BYTES = 32;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A new endpoint secret, `whsec_` + base64 of 32 random bytes; shown to its owner, stored as is. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + crypto.randomBytes(SECRET_BYTES).toString('base64');
}

/** The key bytes of a `whsec_` secret; a malformed secret is our bug, so it throws rather than signs with garbage. */
function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : '';
  // Buffer.from(…, 'base64') skips characters it does not know, so check the alphabet first.
  const key = BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
  if (key.length < 24) throw new Error('a webhook secret must be whsec_ followed by the base64 of at least 24 bytes');
  return key;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * The three headers of one delivery. `id` is the message's id, the same on every retry (receivers
 * deduplicate on it); `timestamp` is when this attempt is sent (receivers refuse stale ones, five
 * minutes by default). Several secrets give several signatures, space-separated: while an endpoint's
 * secret is rotated, a receiver holding either the old or the new one accepts the message.
 */
export function signedHeaders(input: { id: string; timestamp: Date; body: string; secrets: string[] }): SignedHeaders {
  const { id, timestamp, body, secrets } = input;
  if (!id || /\s/.test(id)) throw new Error('a webhook id must be non-empty, without whitespace');
  const seconds = Math.floor(timestamp.getTime() / 1000);
  if (!Number.isFinite(seconds)) throw new Error('a webhook timestamp must be a valid date');
  if (!secrets.length) throw new Error('signing a webhook needs at least one secret');
  const signed = `${id}.${seconds}.${body}`;
  const signatures = secrets.map(
    (secret) => `v1,${crypto.createHmac('sha256', secretKey(secret)).update(signed, 'utf8').digest('base64')}`,
  );
  return { 'webhook-id': id, 'webhook-timestamp': String(seconds), 'webhook-signature': signatures.join(' ') };
}
