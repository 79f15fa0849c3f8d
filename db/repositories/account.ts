// What deleting an account reads and changes in bulk: what still binds the user, what they have
// open, and the rows that are theirs alone. Each function takes the user's id; none reaches
// another user's rows except to read what the user is a party to.
import { and, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import {
  apiKeys,
  applications,
  contracts,
  gigs,
  negotiations,
  notificationMessages,
  notificationPreferences,
  passkeys,
  sessions,
  users,
  webauthnChallenges,
  webhookEndpoints,
} from '../schema.ts';
import type { Executor } from '../client.ts';

/** The user's contracts that are binding now, or whose money is not settled (funding, funded, released). */
export async function unsettledContracts(db: Executor, userId: string): Promise<{ id: string; status: string; unsettled: boolean }[]> {
  const party = or(eq(contracts.clientUserId, userId), eq(contracts.workerUserId, userId));
  // Spelled out: in a select list Drizzle leaves a column unqualified, and `id` would be the milestone's.
  const unsettled = sql<boolean>`exists (select 1 from milestones m where m.contract_id = contracts.id and m.status in ('funding', 'funded', 'released'))`;
  return db
    .select({ id: contracts.id, status: contracts.status, unsettled })
    .from(contracts)
    .where(and(party, or(inArray(contracts.status, ['active', 'disputed']), unsettled)))
    .orderBy(contracts.id);
}

/** Locks the user's row: a deletion and the user's other writes queue behind each other. */
export async function lockUser(tx: Executor, userId: string): Promise<boolean> {
  const rows = await tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.id, userId), isNull(users.deletedAt)))
    .for('update');
  return rows.length > 0;
}

export async function openGigIds(db: Executor, userId: string): Promise<string[]> {
  const rows = await db
    .select({ id: gigs.id })
    .from(gigs)
    .where(and(eq(gigs.clientUserId, userId), inArray(gigs.status, ['draft', 'open', 'paused'])));
  return rows.map((r) => r.id);
}

export async function pendingApplicationIds(db: Executor, userId: string): Promise<string[]> {
  const rows = await db
    .select({ id: applications.id })
    .from(applications)
    .where(and(eq(applications.workerUserId, userId), inArray(applications.status, ['submitted', 'shortlisted'])));
  return rows.map((r) => r.id);
}

export async function openNegotiationIds(db: Executor, userId: string): Promise<string[]> {
  const rows = await db
    .select({ id: negotiations.id })
    .from(negotiations)
    .where(and(or(eq(negotiations.clientUserId, userId), eq(negotiations.workerUserId, userId)), eq(negotiations.status, 'open')));
  return rows.map((r) => r.id);
}

/** Contracts awaiting approval or identity checks: not binding yet, so they can be cancelled. */
export async function pendingContractIds(db: Executor, userId: string): Promise<string[]> {
  const rows = await db
    .select({ id: contracts.id })
    .from(contracts)
    .where(
      and(
        or(eq(contracts.clientUserId, userId), eq(contracts.workerUserId, userId)),
        inArray(contracts.status, ['pending_owner_approval', 'pending_freelancer_kyc']),
      ),
    );
  return rows.map((r) => r.id);
}

export async function activeKeyIds(db: Executor, userId: string): Promise<string[]> {
  const rows = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)));
  return rows.map((r) => r.id);
}

export async function revokeAllSessions(db: Executor, userId: string, at = new Date()): Promise<void> {
  await db
    .update(sessions)
    .set({ revokedAt: at })
    .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)));
}

/** The rows that are the user's alone and say nothing to anyone else: endpoints, inbox, preferences. */
export async function deletePrivateRows(db: Executor, userId: string): Promise<void> {
  await db.delete(webhookEndpoints).where(eq(webhookEndpoints.userId, userId));
  await db.delete(notificationMessages).where(eq(notificationMessages.userId, userId));
  await db.delete(notificationPreferences).where(eq(notificationPreferences.userId, userId));
  await db.delete(passkeys).where(eq(passkeys.userId, userId));
  await db.delete(webauthnChallenges).where(eq(webauthnChallenges.userId, userId));
}

/** The profile becomes a placeholder: the name others see is replaced, everything personal erased. */
export async function anonymize(db: Executor, userId: string, displayName: string, at = new Date()): Promise<void> {
  await db
    .update(users)
    .set({
      displayName,
      bio: '',
      skills: [],
      portfolioWebsiteUrl: null,
      contactDetails: null,
      email: null,
      resumeKey: null,
      githubId: null,
      githubLogin: null,
      deletedAt: at,
      updatedAt: at,
    })
    .where(eq(users.id, userId));
}
