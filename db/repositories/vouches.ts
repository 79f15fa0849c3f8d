// Vouches: permanent, one per (voucher, vouched) pair, never to oneself (the table's key and check).
import { count, desc, eq, sql } from 'drizzle-orm';
import { preparedQuery } from '../prepared.ts';
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
  return readVouchers(db, { userId, limit });
}

// Every profile view reads these two: prepared queries (db/prepared.ts).
const readVouchers = preparedQuery('read_vouchers', (db, name) =>
  db
    .select({ userId: users.id, displayName: users.displayName, vouchedAt: vouches.createdAt })
    .from(vouches)
    .innerJoin(users, eq(users.id, vouches.voucherUserId))
    .where(eq(vouches.vouchedUserId, sql.placeholder('userId')))
    .orderBy(desc(vouches.createdAt), desc(users.id))
    .limit(sql.placeholder('limit'))
    .prepare(name),
);

export async function countVouchers(db: Executor, userId: string): Promise<number> {
  const [row] = await readVoucherCount(db, { userId });
  return row?.n ?? 0;
}

const readVoucherCount = preparedQuery('read_voucher_count', (db, name) =>
  db
    .select({ n: count() })
    .from(vouches)
    .where(eq(vouches.vouchedUserId, sql.placeholder('userId')))
    .prepare(name),
);
