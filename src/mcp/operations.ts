// The API operations the MCP server exposes, one tool each, named by operationId, in the order of
// the lifecycle (llms.txt lists them the same way). Everything else about a tool (its input
// schema, title, description, method and path) comes from openapi.yaml; this table says only
// which operations, at which step, and what the spec cannot say about their effects.
//
// `readOnlyHint` is derived (GET). `destructive`: the call ends or irreversibly spends something
// (cancel, withdraw, reject, release money). `idempotent`: repeating the call with the same
// arguments leaves things as the first call left them (the repeat may answer 409 for the state it
// already reached, or, for fund, the same payment). `scope`: what an OAuth token needs to call it:
// `read` for what only reads, `approve` for the approval, `money` for what moves money, else `draft`.
import type { OAuthScope } from '../oauth/scopes.ts';

export interface ExposedOperation {
  operationId: string;
  step: LifecycleStep;
  /** What an OAuth client needs to be granted to call it (src/oauth/scopes.ts). */
  scope: OAuthScope;
  destructive?: boolean;
  idempotent?: boolean;
}

export const LIFECYCLE_STEPS = {
  identify: 'Who am I: check the key and learn your user id',
  discover: 'Find gigs: ranked search, recommendations, lists',
  publish: 'Publish a gig (as its client)',
  apply: 'Apply to a gig (as a worker)',
  shortlist: 'Review applications and shortlist (as the client)',
  negotiate: 'Negotiate terms in alternating rounds; the other party agrees to the latest',
  contract: 'The contract: both human owners approve it (agents never approve on their own)',
  pay: 'Fund and release milestones (as the client); payouts follow',
  dispute: 'Disputes over money in escrow: open one, respond, add evidence, accept an outcome',
  reputation: 'After a contract: review the other party; vouch for people you trust',
  follow: 'Follow what happened: events, profiles, your inbox, credits and profile',
} as const;

export type LifecycleStep = keyof typeof LIFECYCLE_STEPS;

export const MCP_OPERATIONS: readonly ExposedOperation[] = [
  { operationId: 'verifyApiKey', step: 'identify', scope: 'read' },

  { operationId: 'searchGigs', step: 'discover', scope: 'read' },
  { operationId: 'recommendGigs', step: 'discover', scope: 'read' },
  { operationId: 'listGigs', step: 'discover', scope: 'read' },
  { operationId: 'getGig', step: 'discover', scope: 'read' },
  { operationId: 'sendDiscoveryFeedback', step: 'discover', scope: 'draft', idempotent: true },

  { operationId: 'createGig', step: 'publish', scope: 'draft' },
  { operationId: 'updateGig', step: 'publish', scope: 'draft' },

  { operationId: 'applyToGig', step: 'apply', scope: 'draft' },
  { operationId: 'listMyApplications', step: 'apply', scope: 'read' },
  { operationId: 'getApplication', step: 'apply', scope: 'read' },
  { operationId: 'withdrawApplication', step: 'apply', scope: 'draft', destructive: true, idempotent: true },

  { operationId: 'listGigApplications', step: 'shortlist', scope: 'read' },
  { operationId: 'recommendWorkers', step: 'shortlist', scope: 'read' },
  { operationId: 'shortlistApplication', step: 'shortlist', scope: 'draft', idempotent: true },
  { operationId: 'shortlistWorker', step: 'shortlist', scope: 'draft', idempotent: true },
  { operationId: 'rejectApplication', step: 'shortlist', scope: 'draft', destructive: true, idempotent: true },

  { operationId: 'negotiate', step: 'negotiate', scope: 'draft' },
  { operationId: 'createNegotiation', step: 'negotiate', scope: 'draft' },
  { operationId: 'listNegotiations', step: 'negotiate', scope: 'read' },
  { operationId: 'getNegotiation', step: 'negotiate', scope: 'read' },
  { operationId: 'proposeRound', step: 'negotiate', scope: 'draft' },
  { operationId: 'agreeNegotiation', step: 'negotiate', scope: 'draft', idempotent: true },
  { operationId: 'shareContact', step: 'negotiate', scope: 'draft', idempotent: true },
  { operationId: 'cancelNegotiation', step: 'negotiate', scope: 'draft', destructive: true, idempotent: true },

  { operationId: 'listContracts', step: 'contract', scope: 'read' },
  { operationId: 'getContract', step: 'contract', scope: 'read' },
  // Through MCP this asks the human owner first (src/mcp/approve.ts).
  { operationId: 'approveContract', step: 'contract', scope: 'approve', idempotent: true },
  { operationId: 'reviseContract', step: 'contract', scope: 'draft', idempotent: true },
  { operationId: 'cancelContract', step: 'contract', scope: 'draft', destructive: true, idempotent: true },
  { operationId: 'getConnectLink', step: 'contract', scope: 'draft' },

  { operationId: 'fundMilestone', step: 'pay', scope: 'money', idempotent: true },
  // Releasing pays the worker: it cannot be taken back.
  { operationId: 'releaseMilestone', step: 'pay', scope: 'money', destructive: true, idempotent: true },

  { operationId: 'createDispute', step: 'dispute', scope: 'draft' },
  { operationId: 'respondToDispute', step: 'dispute', scope: 'draft' },
  { operationId: 'addDisputeEvidence', step: 'dispute', scope: 'draft' },
  // Once both parties accept the same outcome, the money moves: it cannot be taken back.
  { operationId: 'acceptDisputeOutcome', step: 'dispute', scope: 'money', destructive: true },

  { operationId: 'createContractReview', step: 'reputation', scope: 'draft' },
  { operationId: 'createVouch', step: 'reputation', scope: 'draft', idempotent: true },

  { operationId: 'listEvents', step: 'follow', scope: 'read' },
  { operationId: 'getProfile', step: 'follow', scope: 'read' },
  { operationId: 'updateMyProfile', step: 'follow', scope: 'draft', idempotent: true },
  { operationId: 'listInboxMessages', step: 'follow', scope: 'read' },
  { operationId: 'markInboxMessageRead', step: 'follow', scope: 'draft', idempotent: true },
  { operationId: 'getCredits', step: 'follow', scope: 'read' },
  { operationId: 'listCreditTransactions', step: 'follow', scope: 'read' },
];

/** Operations a tool reads on its way besides its own (approveContract reads the owner's approval policy). */
const READ_BY_TOOLS = ['getMyProfile'];

/** The scope each operation needs of an OAuth token; an operation neither exposed nor read by a tool is closed to tokens. */
export const SCOPE_OF_OPERATION: ReadonlyMap<string, OAuthScope> = new Map([
  ...MCP_OPERATIONS.map((op) => [op.operationId, op.scope] as const),
  ...READ_BY_TOOLS.map((operationId) => [operationId, 'read'] as const),
]);
