// Owners' approvals of contracts, with their signed receipts, and the keys that sign them.
// Approvals are read through the contract's parties: a caller sees those of their own contracts only.
import { and, asc, desc, eq, isNull, or } from 'drizzle-orm';
import { contractApprovals, contracts, receiptSigningKeys } from '../schema.ts';
import type { Executor } from '../client.ts';

export type ContractApprovalRow = typeof contractApprovals.$inferSelect;
export type SigningKeyRow = typeof receiptSigningKeys.$inferSelect;

export async function insertApproval(tx: Executor, row: typeof contractApprovals.$inferInsert): Promise<ContractApprovalRow> {
  const [inserted] = await tx.insert(contractApprovals).values(row).returning();
  return inserted!;
}

/** A contract's approvals, oldest first, when the caller is one of its parties (else none). */
export async function listApprovalsForParty(db: Executor, userId: string, contractId: string): Promise<ContractApprovalRow[]> {
  const rows = await db
    .select({ approval: contractApprovals })
    .from(contractApprovals)
    .innerJoin(contracts, eq(contracts.id, contractApprovals.contractId))
    .where(and(eq(contractApprovals.contractId, contractId), or(eq(contracts.clientUserId, userId), eq(contracts.workerUserId, userId))))
    .orderBy(asc(contractApprovals.approvedAt), asc(contractApprovals.id));
  return rows.map((r) => r.approval);
}

/** A contract's approvals, oldest first, for a caller that has checked the contract is theirs to read (a dispute's facts). */
export function listApprovalsOfContract(db: Executor, contractId: string): Promise<ContractApprovalRow[]> {
  return db
    .select()
    .from(contractApprovals)
    .where(eq(contractApprovals.contractId, contractId))
    .orderBy(asc(contractApprovals.approvedAt), asc(contractApprovals.id));
}

/** The key that signs new receipts, if one was made. */
export async function activeSigningKey(db: Executor): Promise<SigningKeyRow | undefined> {
  const [row] = await db.select().from(receiptSigningKeys).where(isNull(receiptSigningKeys.retiredAt)).limit(1);
  return row;
}

/** Adds a key as the active one unless another is active already (a concurrent first use). */
export async function insertSigningKeyIfNone(db: Executor, row: Omit<typeof receiptSigningKeys.$inferInsert, 'retiredAt'>): Promise<void> {
  await db.insert(receiptSigningKeys).values(row).onConflictDoNothing();
}

/** Retires the active key (if any) and makes `row` the active one, in the caller's transaction. */
export async function rotateSigningKey(tx: Executor, row: Omit<typeof receiptSigningKeys.$inferInsert, 'retiredAt'>): Promise<void> {
  await tx.update(receiptSigningKeys).set({ retiredAt: new Date() }).where(isNull(receiptSigningKeys.retiredAt));
  await tx.insert(receiptSigningKeys).values(row);
}

/** Every key's public half, newest first: the retired ones still verify the receipts they signed. */
export async function publicSigningKeys(db: Executor): Promise<Pick<SigningKeyRow, 'kid' | 'publicJwk' | 'retiredAt'>[]> {
  return db
    .select({ kid: receiptSigningKeys.kid, publicJwk: receiptSigningKeys.publicJwk, retiredAt: receiptSigningKeys.retiredAt })
    .from(receiptSigningKeys)
    .orderBy(desc(receiptSigningKeys.createdAt));
}
