// Contracts and their milestones. Reads take the caller's id: a contract is visible to its
// two parties only.
import { and, asc, desc, eq, lt, or, sql, type Placeholder } from 'drizzle-orm';
import { preparedQuery } from '../prepared.ts';
import { contractApprovalRequests, contracts, milestones } from '../schema.ts';
import type { Executor } from '../client.ts';
import type { ContractStatus } from '../schema/column-values.ts';

export type ContractRow = typeof contracts.$inferSelect;
export type MilestoneRow = typeof milestones.$inferSelect;

const isParty = (userId: string | Placeholder) => or(eq(contracts.clientUserId, userId), eq(contracts.workerUserId, userId));

export async function getContractForParty(db: Executor, userId: string, id: string): Promise<ContractRow | undefined> {
  const [row] = await readContractForParty(db, { id, userId });
  return row;
}

const readContractForParty = preparedQuery('read_contract_for_party', (db, name) =>
  db
    .select()
    .from(contracts)
    .where(and(eq(contracts.id, sql.placeholder('id')), isParty(sql.placeholder('userId'))))
    .limit(1)
    .prepare(name),
);

/** Records an agent's request for its owner's approval; `inserted` is false when one was recorded for this revision and party already. */
export async function insertApprovalRequest(
  tx: Executor,
  row: typeof contractApprovalRequests.$inferInsert,
): Promise<{ inserted: boolean; row: typeof contractApprovalRequests.$inferSelect }> {
  const [inserted] = await tx.insert(contractApprovalRequests).values(row).onConflictDoNothing().returning();
  if (inserted) return { inserted: true, row: inserted };
  const [existing] = await tx
    .select()
    .from(contractApprovalRequests)
    .where(
      and(
        eq(contractApprovalRequests.contractId, row.contractId),
        eq(contractApprovalRequests.revisionCount, row.revisionCount),
        eq(contractApprovalRequests.partyRole, row.partyRole),
      ),
    );
  return { inserted: false, row: existing! };
}

/** Locked for the rest of the transaction: approvals, revises, expiry and funding queue up on it. */
export async function lockContractForParty(tx: Executor, userId: string, id: string): Promise<ContractRow | undefined> {
  const [row] = await tx
    .select()
    .from(contracts)
    .where(and(eq(contracts.id, id), isParty(userId)))
    .limit(1)
    .for('update');
  return row;
}

export async function lockContract(tx: Executor, id: string): Promise<ContractRow | undefined> {
  const [row] = await tx.select().from(contracts).where(eq(contracts.id, id)).limit(1).for('update');
  return row;
}

export async function lockContractByNegotiation(tx: Executor, negotiationId: string): Promise<ContractRow | undefined> {
  const [row] = await tx.select().from(contracts).where(eq(contracts.negotiationId, negotiationId)).limit(1).for('update');
  return row;
}

export async function getContractByNegotiation(db: Executor, negotiationId: string): Promise<ContractRow | undefined> {
  const [row] = await readContractByNegotiation(db, { negotiationId });
  return row;
}

const readContractByNegotiation = preparedQuery('read_contract_by_negotiation', (db, name) =>
  db
    .select()
    .from(contracts)
    .where(eq(contracts.negotiationId, sql.placeholder('negotiationId')))
    .limit(1)
    .prepare(name),
);

/** A contract between this worker and the gig's client in one of these statuses, if any. */
export async function findContractOnGig(
  db: Executor,
  gigId: string,
  workerUserId: string,
  statuses: readonly string[],
): Promise<ContractRow | undefined> {
  const [row] = await db
    .select()
    .from(contracts)
    .where(and(eq(contracts.gigId, gigId), eq(contracts.workerUserId, workerUserId), sql`${contracts.status} in ${statuses}`))
    .limit(1);
  return row;
}

export async function listContractsForParty(
  db: Executor,
  userId: string,
  filter: { status?: ContractStatus; limit: number; beforeId?: string },
) {
  return db
    .select()
    .from(contracts)
    .where(
      and(
        isParty(userId),
        filter.status ? eq(contracts.status, filter.status) : undefined,
        filter.beforeId ? lt(contracts.id, filter.beforeId) : undefined,
      ),
    )
    .orderBy(desc(contracts.id))
    .limit(filter.limit + 1);
}

export async function insertContract(tx: Executor, values: typeof contracts.$inferInsert & { id: string }) {
  const [row] = await tx.insert(contracts).values(values).returning();
  return row!;
}

export async function updateContract(tx: Executor, id: string, patch: Partial<typeof contracts.$inferInsert>) {
  const [row] = await tx
    .update(contracts)
    .set({ ...patch, updatedAt: new Date() })
    .where(eq(contracts.id, id))
    .returning();
  return row!;
}

/** Contracts waiting for approval past their deadline, locked and skipped by other workers. */
export async function lockOverdueApprovals(tx: Executor, now: Date, limit: number): Promise<ContractRow[]> {
  return tx
    .select()
    .from(contracts)
    .where(and(eq(contracts.status, 'pending_owner_approval'), lt(contracts.approvalDeadline, now)))
    .orderBy(asc(contracts.approvalDeadline))
    .limit(limit)
    .for('update', { skipLocked: true });
}

export async function listMilestones(db: Executor, contractIds: string[]): Promise<MilestoneRow[]> {
  if (contractIds.length === 0) return [];
  // One contract (its view, its changes): a prepared query; a page of them: built as ever.
  if (contractIds.length === 1) return readMilestonesOfContract(db, { contractId: contractIds[0] });
  return db
    .select()
    .from(milestones)
    .where(sql`${milestones.contractId} in ${contractIds}`)
    .orderBy(asc(milestones.contractId), asc(milestones.position));
}

const readMilestonesOfContract = preparedQuery('read_milestones_of_contract', (db, name) =>
  db
    .select()
    .from(milestones)
    .where(eq(milestones.contractId, sql.placeholder('contractId')))
    .orderBy(asc(milestones.position))
    .prepare(name),
);

export async function replaceMilestones(
  tx: Executor,
  contractId: string,
  currency: string,
  items: { id: string; title: string; amount_cents: number; due_date: string | null }[],
) {
  await tx.delete(milestones).where(eq(milestones.contractId, contractId));
  if (items.length === 0) return [];
  return tx
    .insert(milestones)
    .values(
      items.map((m, i) => ({
        id: m.id,
        contractId,
        position: i + 1,
        title: m.title,
        amountCents: m.amount_cents,
        currency,
        dueDate: m.due_date,
        status: 'pending' as const,
      })),
    )
    .returning();
}

export async function lockMilestone(tx: Executor, contractId: string, milestoneId: string): Promise<MilestoneRow | undefined> {
  const [row] = await tx
    .select()
    .from(milestones)
    .where(and(eq(milestones.id, milestoneId), eq(milestones.contractId, contractId)))
    .limit(1)
    .for('update');
  return row;
}

export async function updateMilestone(tx: Executor, id: string, patch: Partial<typeof milestones.$inferInsert>) {
  const [row] = await tx
    .update(milestones)
    .set({ ...patch, updatedAt: new Date() })
    .where(eq(milestones.id, id))
    .returning();
  return row!;
}

/** The worker's contracts waiting for their KYC, locked. */
export async function lockWaitingForKyc(tx: Executor, workerUserId: string): Promise<ContractRow[]> {
  return tx
    .select()
    .from(contracts)
    .where(and(eq(contracts.workerUserId, workerUserId), eq(contracts.status, 'pending_freelancer_kyc')))
    .orderBy(asc(contracts.id))
    .for('update');
}

/** For jobs, which act for no caller: by id alone. */
export async function getMilestoneWithContract(
  db: Executor,
  milestoneId: string,
): Promise<{ milestone: MilestoneRow; contract: ContractRow } | undefined> {
  const [row] = await db
    .select({ milestone: milestones, contract: contracts })
    .from(milestones)
    .innerJoin(contracts, eq(contracts.id, milestones.contractId))
    .where(eq(milestones.id, milestoneId))
    .limit(1);
  return row;
}

/** negotiation id -> its contract's id and the round it holds, for a page of negotiations. */
export async function listContractIdsByNegotiation(
  db: Executor,
  negotiationIds: string[],
): Promise<Map<string, { id: string; roundId: string }>> {
  if (negotiationIds.length === 0) return new Map();
  const rows = await db
    .select({ id: contracts.id, roundId: contracts.roundId, negotiationId: contracts.negotiationId })
    .from(contracts)
    .where(sql`${contracts.negotiationId} in ${negotiationIds}`);
  return new Map(rows.map((r) => [r.negotiationId, { id: r.id, roundId: r.roundId }]));
}

export async function findMilestoneByPayment(db: Executor, paymentId: string): Promise<MilestoneRow | undefined> {
  const [row] = await db.select().from(milestones).where(eq(milestones.paymentId, paymentId)).limit(1);
  return row;
}
