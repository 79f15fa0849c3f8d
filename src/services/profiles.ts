// Profiles: the owner's own (read and edit, with an event) and the public view anyone signed in
// may read. Vouches join both views.
import type { Context } from '../context.ts';
import type { Executor } from '../../db/client.ts';
import { getUser, listVouchers, updateProfile, type UserRow } from '../../db/repositories/users.ts';
import { ApiError, notFound } from '../errors.ts';
import { presentMyProfile, presentPublicProfile } from '../presenters/profiles.ts';
import { profileEvent } from './events.ts';

type Db = Pick<Context, 'db'>;

/** Skills are compared case-insensitively: trimmed, lowercased, first occurrence kept. */
export const normalizeSkills = (skills: string[]): string[] => [...new Set(skills.map((s) => s.trim().toLowerCase()))];

export type ProfilePatch = Partial<Pick<UserRow, 'displayName' | 'bio' | 'skills' | 'portfolioWebsiteUrl' | 'contactDetails' | 'email'>>;

const gone = () => new ApiError('UNAUTHENTICATED', 'the user of these credentials no longer exists');

async function myProfile(db: Executor, user: UserRow) {
  return presentMyProfile(user, await listVouchers(db, user.id));
}

export async function getMyProfile(ctx: Db, callerId: string) {
  const user = await getUser(ctx.db, callerId);
  if (!user) throw gone();
  return myProfile(ctx.db, user);
}

export async function updateMyProfile(ctx: Db, callerId: string, changes: ProfilePatch) {
  const patch = { ...changes };
  if (patch.displayName !== undefined) patch.displayName = patch.displayName.trim();
  if (patch.skills !== undefined) patch.skills = normalizeSkills(patch.skills);
  return ctx.db.transaction(async (tx) => {
    const user = await updateProfile(tx, callerId, patch);
    if (!user) throw gone();
    const profile = await myProfile(tx, user);
    await profileEvent(tx, 'profile.updated', callerId, profile);
    return profile;
  });
}

export async function getPublicProfile(ctx: Db, userId: string) {
  const user = await getUser(ctx.db, userId);
  if (!user) throw notFound('user');
  return presentPublicProfile(user, await listVouchers(ctx.db, user.id));
}
