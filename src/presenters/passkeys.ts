// A passkey as its owner sees it (schema Passkey in openapi.yaml): never its public key or counter.
import type { PasskeyRow } from '../../db/repositories/passkeys.ts';
import { isoTimestamp, isoTimestampOrNull } from './timestamps.ts';

export function presentPasskey(p: PasskeyRow) {
  return {
    id: p.id,
    name: p.name,
    transports: p.transports,
    created_at: isoTimestamp(p.createdAt),
    last_used_at: isoTimestampOrNull(p.lastUsedAt),
  };
}
