// Negotiations, contracts, milestones and payment accounts: the lifecycle of docs/architecture.md §5 and §7.
import { sql } from 'drizzle-orm';
import { check, date, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { at, createdAt, oneOf, updatedAt } from './columns.ts';
import { APPROVAL_METHODS, CONTRACT_STATUSES, MILESTONE_STATUSES, NEGOTIATION_STATUSES, PARTY_ROLES } from './column-values.ts';
import { users } from './identity.ts';
import { gigs } from './gigs.ts';

/**
 * A negotiation between a gig's client and a shortlisted worker. The gig reference is RESTRICT so
 * that a gig under negotiation cannot be deleted (the database enforces it, not only a handler).
 */
export const negotiations = pgTable(
  'negotiations',
  {
    id: uuid('id').primaryKey(),
    gigId: uuid('gig_id')
      .notNull()
      .references(() => gigs.id, { onDelete: 'restrict' }),
    clientUserId: uuid('client_user_id')
      .notNull()
      .references(() => users.id),
    workerUserId: uuid('worker_user_id')
      .notNull()
      .references(() => users.id),
    status: text('status', { enum: NEGOTIATION_STATUSES }).notNull(),
    clientContactSharedAt: at('client_contact_shared_at'),
    workerContactSharedAt: at('worker_contact_shared_at'),
    agreedAt: at('agreed_at'),
    cancelledAt: at('cancelled_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('negotiations_gig_idx').on(t.gigId),
    index('negotiations_client_idx').on(t.clientUserId, t.id),
    index('negotiations_worker_idx').on(t.workerUserId, t.id),
    // One open negotiation per (gig, worker); once agreed or cancelled, a new one may start.
    uniqueIndex('negotiations_open_key').on(t.gigId, t.workerUserId).where(sql`status = 'open'`),
    check('negotiations_status_check', oneOf(t.status, NEGOTIATION_STATUSES)),
  ],
);

/** A milestone as a round proposes it (stored inside the round). */
export interface ProposedMilestone {
  title: string;
  amount_cents: number;
  due_date: string | null;
}

/** One round: the full terms one party proposes. Rounds alternate between the parties. */
export const negotiationRounds = pgTable(
  'negotiation_rounds',
  {
    id: uuid('id').primaryKey(),
    negotiationId: uuid('negotiation_id')
      .notNull()
      .references(() => negotiations.id, { onDelete: 'cascade' }),
    number: integer('number').notNull(),
    proposerUserId: uuid('proposer_user_id')
      .notNull()
      .references(() => users.id),
    proposerRole: text('proposer_role', { enum: PARTY_ROLES }).notNull(),
    rateCents: integer('rate_cents'),
    hoursPerWeek: integer('hours_per_week'),
    startDate: date('start_date', { mode: 'string' }),
    payoutDelayDays: integer('payout_delay_days'),
    currency: text('currency').notNull(),
    milestones: jsonb('milestones').$type<ProposedMilestone[]>().notNull(),
    notes: text('notes').notNull().default(''),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('negotiation_rounds_number_key').on(t.negotiationId, t.number),
    check('negotiation_rounds_role_check', oneOf(t.proposerRole, PARTY_ROLES)),
    check('negotiation_rounds_payout_delay_check', sql`${t.payoutDelayDays} is null or ${t.payoutDelayDays} between 3 and 10`),
  ],
);

/** A contract: created when a negotiation is agreed; binds only after both owners approve. */
export const contracts = pgTable(
  'contracts',
  {
    id: uuid('id').primaryKey(),
    negotiationId: uuid('negotiation_id')
      .notNull()
      .references(() => negotiations.id),
    gigId: uuid('gig_id')
      .notNull()
      .references(() => gigs.id),
    clientUserId: uuid('client_user_id')
      .notNull()
      .references(() => users.id),
    workerUserId: uuid('worker_user_id')
      .notNull()
      .references(() => users.id),
    status: text('status', { enum: CONTRACT_STATUSES }).notNull(),
    /** The round whose terms this contract holds. */
    roundId: uuid('round_id')
      .notNull()
      .references(() => negotiationRounds.id),
    rateCents: integer('rate_cents'),
    hoursPerWeek: integer('hours_per_week'),
    startDate: date('start_date', { mode: 'string' }),
    payoutDelayDays: integer('payout_delay_days').notNull(),
    currency: text('currency').notNull(),
    approvalDeadline: at('approval_deadline'),
    clientApprovedAt: at('client_approved_at'),
    workerApprovedAt: at('worker_approved_at'),
    /** How each owner approved the current revision (null until then; cleared by a revise, as the times are). */
    clientApprovalMethod: text('client_approval_method', { enum: APPROVAL_METHODS }),
    workerApprovalMethod: text('worker_approval_method', { enum: APPROVAL_METHODS }),
    revisionNotes: text('revision_notes'),
    revisionCount: integer('revision_count').notNull().default(0),
    activatedAt: at('activated_at'),
    completedAt: at('completed_at'),
    cancelledAt: at('cancelled_at'),
    expiredAt: at('expired_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('contracts_negotiation_key').on(t.negotiationId),
    index('contracts_client_idx').on(t.clientUserId, t.id),
    index('contracts_worker_idx').on(t.workerUserId, t.id),
    // The expiry job's scan: only contracts still waiting for approval.
    index('contracts_approval_deadline_idx').on(t.approvalDeadline).where(sql`status = 'pending_owner_approval'`),
    check('contracts_status_check', oneOf(t.status, CONTRACT_STATUSES)),
    check('contracts_client_approval_method_check', oneOf(t.clientApprovalMethod, APPROVAL_METHODS)),
    check('contracts_worker_approval_method_check', oneOf(t.workerApprovalMethod, APPROVAL_METHODS)),
  ],
);

/**
 * One owner's approval of one revision of a contract, kept for good: a revise clears the contract's
 * approval times but not these. `receipt` is the signed JWS the approval yielded (a verifier needs
 * nothing else but the published keys).
 */
export const contractApprovals = pgTable(
  'contract_approvals',
  {
    id: uuid('id').primaryKey(),
    contractId: uuid('contract_id')
      .notNull()
      .references(() => contracts.id, { onDelete: 'cascade' }),
    revisionCount: integer('revision_count').notNull(),
    termsHash: text('terms_hash').notNull(),
    partyRole: text('party_role', { enum: PARTY_ROLES }).notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    method: text('method', { enum: APPROVAL_METHODS }).notNull(),
    /** The key (and its hosted agent) an approval by API key came with. */
    apiKeyId: uuid('api_key_id'),
    hostedAgentId: text('hosted_agent_id'),
    receipt: text('receipt').notNull(),
    approvedAt: at('approved_at').notNull(),
  },
  (t) => [
    uniqueIndex('contract_approvals_party_key').on(t.contractId, t.revisionCount, t.partyRole),
    check('contract_approvals_role_check', oneOf(t.partyRole, PARTY_ROLES)),
    check('contract_approvals_method_check', oneOf(t.method, APPROVAL_METHODS)),
  ],
);

/**
 * An agent's request that its owner approve a revision (the owner's policy is owner_confirms): one
 * per revision and party, so a repeated request notifies the owner once.
 */
export const contractApprovalRequests = pgTable(
  'contract_approval_requests',
  {
    contractId: uuid('contract_id')
      .notNull()
      .references(() => contracts.id, { onDelete: 'cascade' }),
    revisionCount: integer('revision_count').notNull(),
    partyRole: text('party_role', { enum: PARTY_ROLES }).notNull(),
    termsHash: text('terms_hash').notNull(),
    apiKeyId: uuid('api_key_id'),
    hostedAgentId: text('hosted_agent_id'),
    requestedAt: at('requested_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.contractId, t.revisionCount, t.partyRole] }),
    check('contract_approval_requests_role_check', oneOf(t.partyRole, PARTY_ROLES)),
  ],
);

export const milestones = pgTable(
  'milestones',
  {
    id: uuid('id').primaryKey(),
    contractId: uuid('contract_id')
      .notNull()
      .references(() => contracts.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    title: text('title').notNull(),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull(),
    dueDate: date('due_date', { mode: 'string' }),
    status: text('status', { enum: MILESTONE_STATUSES }).notNull(),
    paymentId: text('payment_id'),
    /** Kept so that a repeated fund returns the same secret without a second payment. */
    clientSecret: text('client_secret'),
    transferId: text('transfer_id'),
    /** What a dispute's resolution gave back to the client (all of it: `refunded`; part of a split: still `released`). */
    refundedCents: integer('refunded_cents').notNull().default(0),
    refundId: text('refund_id'),
    fundedAt: at('funded_at'),
    releasedAt: at('released_at'),
    payoutDueAt: at('payout_due_at'),
    paidAt: at('paid_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('milestones_position_key').on(t.contractId, t.position),
    uniqueIndex('milestones_payment_id_key').on(t.paymentId),
    // Payouts owed (released, not paid yet), read by the metrics at each scrape (db/repositories/gauges.ts).
    index('milestones_released_idx').on(t.payoutDueAt).where(sql`status = 'released'`),
    check('milestones_status_check', oneOf(t.status, MILESTONE_STATUSES)),
    check('milestones_amount_check', sql`${t.amountCents} >= 0`),
    check('milestones_refunded_check', sql`${t.refundedCents} between 0 and ${t.amountCents}`),
  ],
);

/** A worker's account at the payment provider (Stripe Connect Express, or the sandbox). */
export const paymentAccounts = pgTable(
  'payment_accounts',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    accountId: text('account_id').notNull(),
    verifiedAt: at('verified_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.provider] }), uniqueIndex('payment_accounts_account_id_key').on(t.provider, t.accountId)],
);

/** Provider webhook events already handled: a redelivered event has no second effect. */
export const providerEvents = pgTable(
  'provider_events',
  {
    provider: text('provider').notNull(),
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    receivedAt: at('received_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.eventId] })],
);
