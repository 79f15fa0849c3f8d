// Who the caller is on a negotiation or contract.
import { forbidden } from '../errors.ts';
import type { PartyRole } from './negotiation.ts';

export interface Parties {
  clientUserId: string;
  workerUserId: string;
}

/** The caller's role; callers reach this only through party-scoped reads, so one of the two matches. */
export function roleOf(parties: Parties, userId: string): PartyRole {
  return parties.clientUserId === userId ? 'client' : 'worker';
}

export function requireRole(parties: Parties, userId: string, role: PartyRole, action: string): void {
  if (roleOf(parties, userId) !== role) throw forbidden(`only the ${role} can ${action}`);
}
