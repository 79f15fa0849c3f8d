// Event types come from the spec's event catalog (`webhooks:` in openapi.yaml, generated into
// src/generated/api.d.ts): writing an event whose name the catalog lacks fails to compile.
import type { webhooks } from '../generated/api.d.ts';

export type EventType = keyof webhooks;
