// Cursors are opaque: JSON, base64url, and a check of it, so that a cursor that was cut, edited or
// made up is refused (400 naming `cursor`) instead of being read as some other position. A cursor
// grants nothing (every list is already scoped to its caller), so the check needs no secret: it
// tells a cursor this API made from anything else, which is all a client needs to hear.
import { hash } from 'node:crypto';

// The one-shot crypto.hash: a page of every list seals one, and it costs half of createHash's.
const check = (body: string) => hash('sha256', `gigmarket-cursor:${body}`, 'base64url').slice(0, 12);

export function sealCursor(value: unknown): string {
  const body = Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${body}.${check(body)}`;
}

/** The value sealed in the cursor, or undefined when it is not a cursor this API made. */
export function openCursor(cursor: string): unknown {
  const dot = cursor.lastIndexOf('.');
  if (dot < 0) return undefined;
  const body = cursor.slice(0, dot);
  if (cursor.slice(dot + 1) !== check(body)) return undefined;
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}
