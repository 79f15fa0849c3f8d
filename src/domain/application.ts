// Application rules (docs/architecture.md §5): the lifecycle as a transition table and who may act.
import type { TransitionTable } from './state-machine.ts';

export const APPLICATION_STATUSES = ['submitted', 'shortlisted', 'rejected', 'withdrawn'] as const;
export type ApplicationStatus = (typeof APPLICATION_STATUSES)[number];
export type ApplicationAction = 'shortlist' | 'reject' | 'withdraw';
export const APPLICATION_ORIGINS = ['application', 'invitation'] as const;
export type ApplicationOrigin = (typeof APPLICATION_ORIGINS)[number];

export const applicationTransitions: TransitionTable<ApplicationStatus, ApplicationAction> = [
  { action: 'shortlist', from: ['submitted'], to: 'shortlisted', event: 'application.shortlisted' },
  { action: 'reject', from: ['submitted', 'shortlisted'], to: 'rejected', event: 'application.rejected' },
  { action: 'withdraw', from: ['submitted', 'shortlisted'], to: 'withdrawn', event: 'application.withdrawn' },
];

/** Who may take each action: the gig's client decides, the worker withdraws. */
export const actorOf: Record<ApplicationAction, 'client' | 'worker'> = {
  shortlist: 'client',
  reject: 'client',
  withdraw: 'worker',
};
