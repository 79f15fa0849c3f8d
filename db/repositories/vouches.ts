// Vouches: permanent, one per (voucher, vouched) pair, never to oneself (the table's key and check).
import { count, desc, eq } from 'drizzle-orm';
import { users, vouches } from '../schema.ts';
import type { Executor } from '../client.ts';

export type VouchRow = typeof vouches.$inferSelect;

/** The new vouch, or undefined when this voucher already vouched for this user (a concurrent twin included). */
export async function insertVouch(tx: Executor, voucherUserId: string, vouchedUserId: string): Promise<VouchRow | undefined> {
  const [row] = await tx.insert(vouches).values({ voucherUserId, vouchedUserId }).onConflictDoNothing().returning();
  return row;
}

export interface Voucher {
  userId: string;
  displayName: string;
  vouchedAt: Date;
}

/** Who vouched for this user, newest vouch first, at most `limit`. */
export async function listVouchers(db: Executor, userId: string, limit: number): Promise<Voucher[]> {
  return db
    .select({ userId: users.id, displayName: users.displayName, vouchedAt: vouches.createdAt })
    .from(vouches)
    .innerJoin(users, eq(users.id, vouches.voucherUserId))
    .where(eq(vouches.vouchedUserId, userId))
    .orderBy(desc(vouches.createdAt), desc(users.id))
    .limit(limit);
}

export async function countVouchers(db: Executor, userId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(vouches).where(eq(vouches.vouchedUserId, userId));
  return row?.n ?? 0;
}
