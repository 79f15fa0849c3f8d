// Disputes over a contract's escrowed money, and their evidence (src/domain/dispute.ts).
import { sql } from 'drizzle-orm';
import { check, index, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { at, createdAt, oneOf, updatedAt } from './columns.ts';
import {
  DESCRIPTION_MAX,
  DISPUTE_REASONS,
  DISPUTE_STATUSES,
  EVIDENCE_KINDS,
  EVIDENCE_TEXT_MAX,
  PARTY_ROLES,
  type Acceptance,
  type Recommendation,
  type Resolution,
} from './column-values.ts';
import { users } from './identity.ts';
import { contracts } from './contracts.ts';
import { storedFiles } from './files.ts';

export const disputes = pgTable(
  'disputes',
  {
    id: uuid('id').primaryKey(),
    contractId: uuid('contract_id')
      .notNull()
      .references(() => contracts.id),
    openerUserId: uuid('opener_user_id')
      .notNull()
      .references(() => users.id),
    openerRole: text('opener_role', { enum: PARTY_ROLES }).notNull(),
    status: text('status', { enum: DISPUTE_STATUSES }).notNull(),
    reason: text('reason', { enum: DISPUTE_REASONS }).notNull(),
    description: text('description').notNull(),
    /** The contract's milestones whose money is disputed (funded or released, not paid, when opened). */
    milestoneIds: uuid('milestone_ids').array().notNull(),
    response: text('response'),
    respondedAt: at('responded_at'),
    clientAcceptance: jsonb('client_acceptance').$type<Acceptance>(),
    workerAcceptance: jsonb('worker_acceptance').$type<Acceptance>(),
    /** The latest advisory recommendation (a new one replaces it). */
    recommendation: jsonb('recommendation').$type<Recommendation>(),
    /** The outcome both parties accepted and how each milestone's money is divided. */
    resolution: jsonb('resolution').$type<Resolution>(),
    resolvedAt: at('resolved_at'),
    /** When the resolution's refunds and releases were all made and the contract let go. */
    settledAt: at('settled_at'),
    withdrawnAt: at('withdrawn_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // One dispute at a time holds a contract: of two concurrent openings, one is stored.
    uniqueIndex('disputes_live_contract_key').on(t.contractId).where(sql`status in ('open', 'responded')`),
    index('disputes_contract_idx').on(t.contractId, t.id),
    check('disputes_status_check', oneOf(t.status, DISPUTE_STATUSES)),
    check('disputes_reason_check', oneOf(t.reason, DISPUTE_REASONS)),
    check('disputes_opener_role_check', oneOf(t.openerRole, PARTY_ROLES)),
    check('disputes_description_check', sql`char_length(${t.description}) between 1 and ${sql.raw(String(DESCRIPTION_MAX))}`),
    check('disputes_milestones_check', sql`cardinality(${t.milestoneIds}) >= 1`),
  ],
);

export const disputeEvidence = pgTable(
  'dispute_evidence',
  {
    id: uuid('id').primaryKey(),
    disputeId: uuid('dispute_id')
      .notNull()
      .references(() => disputes.id, { onDelete: 'cascade' }),
    authorUserId: uuid('author_user_id')
      .notNull()
      .references(() => users.id),
    authorRole: text('author_role', { enum: PARTY_ROLES }).notNull(),
    kind: text('kind', { enum: EVIDENCE_KINDS }).notNull(),
    text: text('text'),
    /** The file in the file store (stored_files, purpose dispute_evidence). */
    fileId: uuid('file_id').references(() => storedFiles.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    index('dispute_evidence_dispute_idx').on(t.disputeId, t.id),
    check('dispute_evidence_kind_check', oneOf(t.kind, EVIDENCE_KINDS)),
    check('dispute_evidence_author_role_check', oneOf(t.authorRole, PARTY_ROLES)),
    check(
      'dispute_evidence_content_check',
      sql`(${t.kind} = 'text' and ${t.fileId} is null and char_length(${t.text}) between 1 and ${sql.raw(String(EVIDENCE_TEXT_MAX))}) or (${t.kind} = 'file' and ${t.fileId} is not null and ${t.text} is null)`,
    ),
  ],
);
