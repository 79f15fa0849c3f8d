import { v7 } from 'uuid';

/** New ids are UUIDv7: time-ordered, so id order is creation order (used by cursors). */
export const newId = (): string => v7();

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
