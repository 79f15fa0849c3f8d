import { v7 } from 'uuid';

/** New ids are UUIDv7: time-ordered, so id order is creation order (used by cursors). */
export const newId = (): string => v7();

/**
 * The smallest UUIDv7 of a moment: every id made before it is smaller. A UUIDv7 starts with its
 * milliseconds since the epoch (48 bits), so "made before t" is `id < idAt(t)`, which the primary
 * key's index answers.
 */
export function idAt(moment: Date): string {
  const hex = Math.max(0, moment.getTime()).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
