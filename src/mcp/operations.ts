// The API operations the MCP server exposes, one tool each, named by operationId, in the order of
// the lifecycle (llms.txt lists them the same way). Everything else about a tool (its input
// schema, title, description, method and path) comes from openapi.yaml; this table says only
// which operations, at which step, and what the spec cannot say about their effects.
//
// `readOnlyHint` is derived (GET). `destructive`: the call ends or irreversibly spends something
// (cancel, withdraw, reject, release money). `idempotent`: repeating the call with the same
// arguments leaves things as the first call left them (the repeat may answer 409 for the state it
// already reached, or, for fund, the same payment).

export interface ExposedOperation {
  operationId: string;
  step: LifecycleStep;
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
  { operationId: 'verifyApiKey', step: 'identify' },

  { operationId: 'searchGigs', step: 'discover' },
  { operationId: 'recommendGigs', step: 'discover' },
  { operationId: 'listGigs', step: 'discover' },
  { operationId: 'getGig', step: 'discover' },
  { operationId: 'sendDiscoveryFeedback', step: 'discover', idempotent: true },

  { operationId: 'createGig', step: 'publish' },
  { operationId: 'updateGig', step: 'publish' },

  { operationId: 'applyToGig', step: 'apply' },
  { operationId: 'listMyApplications', step: 'apply' },
  { operationId: 'getApplication', step: 'apply' },
  { operationId: 'withdrawApplication', step: 'apply', destructive: true, idempotent: true },

  { operationId: 'listGigApplications', step: 'shortlist' },
  { operationId: 'recommendWorkers', step: 'shortlist' },
  { operationId: 'shortlistApplication', step: 'shortlist', idempotent: true },
  { operationId: 'shortlistWorker', step: 'shortlist', idempotent: true },
  { operationId: 'rejectApplication', step: 'shortlist', destructive: true, idempotent: true },

  { operationId: 'negotiate', step: 'negotiate' },
  { operationId: 'createNegotiation', step: 'negotiate' },
  { operationId: 'listNegotiations', step: 'negotiate' },
  { operationId: 'getNegotiation', step: 'negotiate' },
  { operationId: 'proposeRound', step: 'negotiate' },
  { operationId: 'agreeNegotiation', step: 'negotiate', idempotent: true },
  { operationId: 'shareContact', step: 'negotiate', idempotent: true },
  { operationId: 'cancelNegotiation', step: 'negotiate', destructive: true, idempotent: true },

  { operationId: 'listContracts', step: 'contract' },
  { operationId: 'getContract', step: 'contract' },
  // Through MCP this asks the human owner first (src/mcp/approve.ts).
  { operationId: 'approveContract', step: 'contract', idempotent: true },
  { operationId: 'reviseContract', step: 'contract', idempotent: true },
  { operationId: 'cancelContract', step: 'contract', destructive: true, idempotent: true },
  { operationId: 'getConnectLink', step: 'contract' },

  { operationId: 'fundMilestone', step: 'pay', idempotent: true },
  // Releasing pays the worker: it cannot be taken back.
  { operationId: 'releaseMilestone', step: 'pay', destructive: true, idempotent: true },

  { operationId: 'createDispute', step: 'dispute' },
  { operationId: 'respondToDispute', step: 'dispute' },
  { operationId: 'addDisputeEvidence', step: 'dispute' },
  // Once both parties accept the same outcome, the money moves: it cannot be taken back.
  { operationId: 'acceptDisputeOutcome', step: 'dispute', destructive: true },

  { operationId: 'createContractReview', step: 'reputation' },
  { operationId: 'createVouch', step: 'reputation', idempotent: true },

  { operationId: 'listEvents', step: 'follow' },
  { operationId: 'getProfile', step: 'follow' },
  { operationId: 'updateMyProfile', step: 'follow', idempotent: true },
  { operationId: 'listInboxMessages', step: 'follow' },
  { operationId: 'markInboxMessageRead', step: 'follow', idempotent: true },
  { operationId: 'getCredits', step: 'follow' },
  { operationId: 'listCreditTransactions', step: 'follow' },
];
