// Gig rules (docs/architecture.md §5): the lifecycle as a transition table, who may see and change a gig, and
// how input is normalized. Pure: no database here.
import { ApiError, forbidden, validationFailed } from '../errors.ts';
import { transition, type Transition, type TransitionTable } from './state-machine.ts';
import type { CompensationType, GigStatus } from '../../db/schema/column-values.ts';

export { COMPENSATION_TYPES, type CompensationType, GIG_STATUSES, type GigStatus } from '../../db/schema/column-values.ts';

export type GigAction = 'publish' | 'pause' | 'resume' | 'close';

export const gigTransitions: TransitionTable<GigStatus, GigAction> = [
  { action: 'publish', from: ['draft'], to: 'open', event: 'gig.published' },
  { action: 'pause', from: ['open'], to: 'paused', event: 'gig.paused' },
  { action: 'resume', from: ['paused'], to: 'open', event: 'gig.resumed' },
  { action: 'close', from: ['draft', 'open', 'paused'], to: 'closed', event: 'gig.closed' },
];

/**
 * The transition a PATCH asking for status `target` makes, or null when the gig already has
 * that status (nothing to do). A move the lifecycle does not allow is INVALID_STATE.
 */
export function statusChange(current: GigStatus, target: GigStatus): Transition<GigStatus, GigAction> | null {
  if (current === target) return null;
  if (target === 'draft') throw new ApiError('INVALID_STATE', `a gig that is ${current} cannot go back to draft`);
  const action: GigAction = target === 'open' ? (current === 'draft' ? 'publish' : 'resume') : target === 'paused' ? 'pause' : 'close';
  return transition(gigTransitions, 'gig', current, action);
}

/** Closed is final: its fields cannot change either. */
export function assertEditable(status: GigStatus): void {
  if (status === 'closed') throw new ApiError('INVALID_STATE', 'cannot update a gig that is closed');
}

/** Only open gigs take applications. */
export function assertAcceptsApplications(status: GigStatus): void {
  if (status !== 'open') throw new ApiError('INVALID_STATE', `cannot apply to a gig that is ${status}`);
}

/** A client may shortlist while the gig is open or paused (a pause stops new applications, not the selection). */
export function assertAllowsShortlisting(status: GigStatus): void {
  if (status !== 'open' && status !== 'paused') {
    throw new ApiError('INVALID_STATE', `cannot shortlist for a gig that is ${status}`);
  }
}

export interface GigAccess {
  clientUserId: string | null;
  status: string;
}

export function isClient(gig: GigAccess, userId: string): boolean {
  return gig.clientUserId !== null && gig.clientUserId === userId;
}

/**
 * A tag as it is stored and matched: NFKC (so the full-width `ｒｕｓｔ` is `rust`), without format
 * characters (Unicode Cf: zero-width and bidirectional controls, so `ru\u200bst` is `rust` too),
 * trimmed and lowercased. The spec says so (its introduction), and refuses the rest of what a
 * tag cannot hold (controls, line breaks) before it gets here.
 */
export function normalizeTag(tag: string): string {
  return tag
    .normalize('NFKC')
    .replace(/\p{Cf}/gu, '')
    .trim()
    .toLowerCase();
}

/** Normalized (normalizeTag), deduplicated, in the order given. */
export function normalizeTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map(normalizeTag))];
}

/** When the input does not say: `hourly` if there is an hourly rate, else `unknown`. */
export function defaultCompensationType(rateCents: number | null | undefined): CompensationType {
  return rateCents === null || rateCents === undefined ? 'unknown' : 'hourly';
}

/**
 * The range must not be inverted. `changed` names the field the request set, so the issue points
 * at what the caller sent (for a PATCH, the other bound may be the stored one).
 */
export function checkCompensationRange(
  min: number | null,
  max: number | null,
  changed: 'compensation_min_cents' | 'compensation_max_cents',
): void {
  if (min !== null && max !== null && min > max) {
    throw validationFailed(
      `body.${changed}`,
      changed === 'compensation_max_cents'
        ? `must be at least compensation_min_cents (${min})`
        : `must be at most compensation_max_cents (${max})`,
    );
  }
}

/**
 * Only the client changes a gig. External gigs belong to their source: nobody here may change
 * them (403, since they are visible to everyone).
 */
export function assertClientOf(gig: GigAccess & { source: string }, userId: string, doWhat: string): void {
  if (gig.clientUserId === null) throw forbidden(`this gig comes from ${gig.source}; nobody can ${doWhat} here`);
  if (gig.clientUserId !== userId) throw forbidden(`only the gig's client can ${doWhat}`);
}
