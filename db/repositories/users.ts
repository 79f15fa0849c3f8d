// Users (owners) and their profiles.
import { and, desc, eq, isNull, lt, sql } from 'drizzle-orm';
import { preparedQuery } from '../prepared.ts';
import { users } from '../schema.ts';
import type { Executor } from '../client.ts';
import type { ApprovalPolicy } from '../schema/column-values.ts';

export type UserRow = typeof users.$inferSelect;

export async function insertUser(db: Executor, input: { id: string; displayName: string; githubId?: number; githubLogin?: string }) {
  const [row] = await db
    .insert(users)
    .values({
      id: input.id,
      displayName: input.displayName,
      githubId: input.githubId ?? null,
      githubLogin: input.githubLogin ?? null,
    })
    .returning();
  return row!;
}

export async function getUser(db: Executor, id: string): Promise<UserRow | undefined> {
  const [row] = await readUser(db, { id });
  return row;
}

const readUser = preparedQuery('read_user', (db, name) =>
  db
    .select()
    .from(users)
    .where(eq(users.id, sql.placeholder('id')))
    .limit(1)
    .prepare(name),
);

/**
 * The user linked to this GitHub account, created on first sign-in. The login is refreshed on
 * every sign-in (GitHub logins can be renamed; the numeric id cannot).
 */
export async function upsertGithubUser(db: Executor, newUserId: string, github: { id: number; login: string; name: string | null }) {
  const [row] = await db
    .insert(users)
    .values({
      id: newUserId,
      displayName: github.name || github.login,
      githubId: github.id,
      githubLogin: github.login,
    })
    .onConflictDoUpdate({
      target: users.githubId,
      set: { githubLogin: github.login, updatedAt: new Date() },
    })
    .returning();
  return row!;
}

/** Users whose accounts exist (not deleted), newest first. */
export async function listUsers(db: Executor, page: { limit: number; afterId?: string }) {
  return db
    .select()
    .from(users)
    .where(and(isNull(users.deletedAt), page.afterId ? lt(users.id, page.afterId) : undefined))
    .orderBy(desc(users.id))
    .limit(page.limit);
}

/** The owner's approval policy; `lock` holds the row (FOR SHARE) so that a change of policy waits for the caller's transaction. */
export async function approvalPolicyOf(db: Executor, userId: string, lock = false): Promise<ApprovalPolicy | undefined> {
  const query = db.select({ policy: users.approvalPolicy }).from(users).where(eq(users.id, userId)).limit(1);
  const [row] = lock ? await query.for('share') : await query;
  return row?.policy;
}

export async function updateProfile(
  db: Executor,
  userId: string,
  patch: Partial<Pick<UserRow, 'displayName' | 'bio' | 'skills' | 'portfolioWebsiteUrl' | 'contactDetails' | 'email' | 'approvalPolicy'>>,
) {
  const [row] = await db
    .update(users)
    .set({ ...patch, updatedAt: new Date() })
    .where(eq(users.id, userId))
    .returning();
  return row;
}
