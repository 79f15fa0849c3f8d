// Application rules (docs/architecture.md §5): the lifecycle as a transition table and who may act.
import type { TransitionTable } from './state-machine.ts';
import type { ApplicationStatus } from '../../db/schema/column-values.ts';

export {
  APPLICATION_ORIGINS,
  type ApplicationOrigin,
  APPLICATION_STATUSES,
  type ApplicationStatus,
} from '../../db/schema/column-values.ts';

export type ApplicationAction = 'shortlist' | 'reject' | 'withdraw';

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
