// Profiles: the owner's own (read and edit, with an event) and the public view anyone signed in
// may read. Vouches and published reviews join both views.
import type { Actor } from '../actor.ts';
import type { Context } from '../context.ts';
import type { Executor } from '../../db/client.ts';
import { getUser, updateProfile, type UserRow } from '../../db/repositories/users.ts';
import { countVouchers, listVouchers } from '../../db/repositories/vouches.ts';
import { ratingSummary } from '../../db/repositories/reviews.ts';
import { ApiError, notFound } from '../errors.ts';
import { presentMyProfile, presentPublicProfile, type Trust } from '../presenters/profiles.ts';
import { profileEvent } from './events.ts';
import { requireOwnerInPerson } from './approval-policy.ts';

type Db = Pick<Context, 'db'>;
type DbConfig = Pick<Context, 'db' | 'config'>;

/** Skills are compared case-insensitively: trimmed, lowercased, first occurrence kept. */
export const normalizeSkills = (skills: string[]): string[] => [...new Set(skills.map((s) => s.trim().toLowerCase()))];

export type ProfilePatch = Partial<
  Pick<UserRow, 'displayName' | 'bio' | 'skills' | 'portfolioWebsiteUrl' | 'contactDetails' | 'email' | 'approvalPolicy'>
>;

export const gone = () => new ApiError('UNAUTHENTICATED', 'the user of these credentials no longer exists');

/** A profile lists the latest vouches only (the count says how many in all), so its size is bounded. */
export const PROFILE_VOUCHERS = 100;

async function trustOf(db: Executor, userId: string): Promise<Trust> {
  const [vouchers, vouchCount, rating] = await Promise.all([
    listVouchers(db, userId, PROFILE_VOUCHERS),
    countVouchers(db, userId),
    ratingSummary(db, userId),
  ]);
  return { vouchers, vouchCount, reviewCount: rating.count, averageRating: rating.average };
}

/** The owner's view of `user`, read through `db` (a transaction's, when inside one). */
export async function myProfile(ctx: Pick<Context, 'config'>, db: Executor, user: UserRow) {
  return presentMyProfile(user, await trustOf(db, user.id), ctx.config.publicUrl);
}

export async function getMyProfile(ctx: DbConfig, actor: Actor) {
  const user = await getUser(ctx.db, actor.userId);
  if (!user) throw gone();
  return myProfile(ctx, ctx.db, user);
}

export async function updateMyProfile(ctx: DbConfig, actor: Actor, changes: ProfilePatch) {
  requireOwnerInPerson(actor, changes.approvalPolicy);
  const patch = { ...changes };
  if (patch.displayName !== undefined) patch.displayName = patch.displayName.trim();
  if (patch.skills !== undefined) patch.skills = normalizeSkills(patch.skills);
  return ctx.db.transaction(async (tx) => {
    const user = await updateProfile(tx, actor.userId, patch);
    if (!user) throw gone();
    const profile = await myProfile(ctx, tx, user);
    await profileEvent(tx, 'profile.updated', actor.userId, profile, actor);
    return profile;
  });
}

export async function getPublicProfile(ctx: Db, userId: string) {
  const user = await getUser(ctx.db, userId);
  if (!user) throw notFound('user');
  return presentPublicProfile(user, await trustOf(ctx.db, user.id));
}
