// Disputes and their evidence. Reads take the caller's id: a dispute is visible to the two parties
// of its contract only.
import { and, asc, count, desc, eq, inArray, lt, or, sql, type Placeholder } from 'drizzle-orm';
import { preparedQuery } from '../prepared.ts';
import { contracts, disputeEvidence, disputes, gigs, storedFiles } from '../schema.ts';
import type { Executor } from '../client.ts';
import type { ContractRow } from './contracts.ts';

export type DisputeRow = typeof disputes.$inferSelect;
export type EvidenceRow = typeof disputeEvidence.$inferSelect;
/** Evidence with its file's description (null for a statement). */
export type EvidenceWithFile = EvidenceRow & { file: { contentType: string; sizeBytes: number; sha256: string } | null };

const isParty = (userId: string | Placeholder) => or(eq(contracts.clientUserId, userId), eq(contracts.workerUserId, userId));

/** The dispute and its contract, when the caller is a party of the contract. */
export async function getDisputeForParty(
  db: Executor,
  userId: string,
  id: string,
): Promise<{ dispute: DisputeRow; contract: ContractRow } | undefined> {
  const [row] = await readDisputeForParty(db, { id, userId });
  return row;
}

const readDisputeForParty = preparedQuery('read_dispute_for_party', (db, name) =>
  db
    .select({ dispute: disputes, contract: contracts })
    .from(disputes)
    .innerJoin(contracts, eq(contracts.id, disputes.contractId))
    .where(and(eq(disputes.id, sql.placeholder('id')), isParty(sql.placeholder('userId'))))
    .limit(1)
    .prepare(name),
);

/** The disputes of the caller's contracts, newest first: limit + 1 rows, for paging. */
export async function listDisputesForParty(
  db: Executor,
  userId: string,
  filter: { status?: DisputeRow['status']; contractId?: string; limit: number; beforeId?: string },
): Promise<DisputeRow[]> {
  const rows = await db
    .select({ dispute: disputes })
    .from(disputes)
    .innerJoin(contracts, eq(contracts.id, disputes.contractId))
    .where(
      and(
        isParty(userId),
        filter.status ? eq(disputes.status, filter.status) : undefined,
        filter.contractId ? eq(disputes.contractId, filter.contractId) : undefined,
        filter.beforeId ? lt(disputes.id, filter.beforeId) : undefined,
      ),
    )
    .orderBy(desc(disputes.id))
    .limit(filter.limit + 1);
  return rows.map((r) => r.dispute);
}

/** For jobs, which act for no caller. */
export async function getDispute(db: Executor, id: string): Promise<DisputeRow | undefined> {
  const [row] = await db.select().from(disputes).where(eq(disputes.id, id)).limit(1);
  return row;
}

/** Locked for the rest of the transaction: responses, acceptances, withdrawals and settlement queue up on it. */
export async function lockDispute(tx: Executor, id: string): Promise<DisputeRow | undefined> {
  const [row] = await tx.select().from(disputes).where(eq(disputes.id, id)).limit(1).for('update');
  return row;
}

/** The new dispute, or undefined when another dispute of the contract is still live (a concurrent twin included). */
export async function insertDispute(tx: Executor, values: typeof disputes.$inferInsert & { id: string }): Promise<DisputeRow | undefined> {
  const [row] = await tx.insert(disputes).values(values).onConflictDoNothing().returning();
  return row;
}

export async function updateDispute(tx: Executor, id: string, patch: Partial<typeof disputes.$inferInsert>): Promise<DisputeRow> {
  const [row] = await tx
    .update(disputes)
    .set({ ...patch, updatedAt: new Date() })
    .where(eq(disputes.id, id))
    .returning();
  return row!;
}

export async function countEvidence(db: Executor, disputeId: string, authorUserId?: string): Promise<number> {
  // All of it (every view of a dispute): a prepared query; one author's (the evidence limit): built.
  if (!authorUserId) return (await readEvidenceCount(db, { disputeId }))[0]?.n ?? 0;
  const [row] = await db
    .select({ n: count() })
    .from(disputeEvidence)
    .where(and(eq(disputeEvidence.disputeId, disputeId), authorUserId ? eq(disputeEvidence.authorUserId, authorUserId) : undefined));
  return row?.n ?? 0;
}

const readEvidenceCount = preparedQuery('read_evidence_count', (db, name) =>
  db
    .select({ n: count() })
    .from(disputeEvidence)
    .where(eq(disputeEvidence.disputeId, sql.placeholder('disputeId')))
    .prepare(name),
);

/** How much evidence each of the disputes has (absent: none). */
export async function countEvidenceOf(db: Executor, disputeIds: string[]): Promise<Map<string, number>> {
  if (!disputeIds.length) return new Map();
  const rows = await db
    .select({ disputeId: disputeEvidence.disputeId, n: count() })
    .from(disputeEvidence)
    .where(inArray(disputeEvidence.disputeId, disputeIds))
    .groupBy(disputeEvidence.disputeId);
  return new Map(rows.map((r) => [r.disputeId, r.n]));
}

export async function insertEvidence(tx: Executor, values: typeof disputeEvidence.$inferInsert & { id: string }): Promise<EvidenceRow> {
  const [row] = await tx.insert(disputeEvidence).values(values).returning();
  return row!;
}

const withFile = (db: Executor) =>
  db
    .select({
      evidence: disputeEvidence,
      contentType: storedFiles.contentType,
      sizeBytes: storedFiles.sizeBytes,
      sha256: storedFiles.sha256,
    })
    .from(disputeEvidence)
    .leftJoin(storedFiles, eq(storedFiles.id, disputeEvidence.fileId));

type Joined = { evidence: EvidenceRow; contentType: string | null; sizeBytes: number | null; sha256: string | null };
const joined = (r: Joined): EvidenceWithFile => ({
  ...r.evidence,
  file: r.contentType === null ? null : { contentType: r.contentType, sizeBytes: r.sizeBytes!, sha256: r.sha256! },
});

/** The dispute's evidence, oldest first. */
export async function listEvidence(db: Executor, disputeId: string): Promise<EvidenceWithFile[]> {
  const rows = await readEvidence(db, { disputeId });
  return rows.map(joined);
}

const readEvidence = preparedQuery('read_evidence', (db, name) =>
  withFile(db)
    .where(eq(disputeEvidence.disputeId, sql.placeholder('disputeId')))
    .orderBy(asc(disputeEvidence.id))
    .prepare(name),
);

export async function getEvidence(db: Executor, disputeId: string, evidenceId: string): Promise<EvidenceWithFile | undefined> {
  const [row] = await withFile(db)
    .where(and(eq(disputeEvidence.disputeId, disputeId), eq(disputeEvidence.id, evidenceId)))
    .limit(1);
  return row ? joined(row) : undefined;
}

/** The title and description of a contract's gig: the terms' context for a recommendation. */
export async function gigText(db: Executor, gigId: string): Promise<{ title: string; description: string } | undefined> {
  const [row] = await db.select({ title: gigs.title, description: gigs.description }).from(gigs).where(eq(gigs.id, gigId)).limit(1);
  return row;
}
