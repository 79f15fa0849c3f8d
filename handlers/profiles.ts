import type { AppContext } from '../src/context.ts';
import type { Handlers } from '../src/http/handler.ts';
import type { Executor } from '../db/client.ts';
import { principalOf } from '../src/auth/authenticate.ts';
import { getUser, listVouchers, updateProfile, type UserRow } from '../db/repositories/users.ts';
import { recordEvent } from '../db/repositories/events.ts';
import { ApiError, notFound } from '../src/errors.ts';

/** Skills are compared case-insensitively: trimmed, lowercased, first occurrence kept. */
export const normalizeSkills = (skills: string[]): string[] => [...new Set(skills.map((s) => s.trim().toLowerCase()))];

async function vouchedBy(db: Executor, userId: string) {
  return (await listVouchers(db, userId)).map((v) => ({ user_id: v.userId, display_name: v.displayName }));
}

/** The owner's view of their profile. */
async function presentMyProfile(db: Executor, user: UserRow) {
  return {
    user_id: user.id,
    display_name: user.displayName,
    bio: user.bio,
    skills: user.skills,
    portfolio_website_url: user.portfolioWebsiteUrl,
    contact_details: user.contactDetails,
    resume_url: null, // resume upload comes with a later issue (users.resume_key)
    github_login: user.githubLogin,
    vouched_by: await vouchedBy(db, user.id),
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
  };
}

/** What anyone signed in sees. */
async function presentPublicProfile(db: Executor, user: UserRow) {
  return {
    user_id: user.id,
    display_name: user.displayName,
    bio: user.bio,
    skills: user.skills,
    vouched_by: await vouchedBy(db, user.id),
    github: user.githubLogin ? { login: user.githubLogin, url: `https://github.com/${encodeURIComponent(user.githubLogin)}` } : null,
    created_at: user.createdAt.toISOString(),
  };
}

export function profileHandlers(ctx: AppContext): Handlers<'getMyProfile' | 'updateMyProfile' | 'getProfile'> {
  return {
    async getMyProfile(request) {
      const user = await getUser(ctx.db, principalOf(request).userId);
      if (!user) throw new ApiError('UNAUTHENTICATED', 'the user of these credentials no longer exists');
      return presentMyProfile(ctx.db, user);
    },

    async updateMyProfile(request) {
      const { userId } = principalOf(request);
      const body = request.body;
      const patch: Parameters<typeof updateProfile>[2] = {};
      if (body.display_name !== undefined) patch.displayName = body.display_name.trim();
      if (body.bio !== undefined) patch.bio = body.bio;
      if (body.skills !== undefined) patch.skills = normalizeSkills(body.skills);
      if (body.portfolio_website_url !== undefined) patch.portfolioWebsiteUrl = body.portfolio_website_url;
      if (body.contact_details !== undefined) patch.contactDetails = body.contact_details;
      return ctx.db.transaction(async (tx) => {
        const user = await updateProfile(tx, userId, patch);
        if (!user) throw new ApiError('UNAUTHENTICATED', 'the user of these credentials no longer exists');
        const profile = await presentMyProfile(tx, user);
        await recordEvent(tx, {
          type: 'profile.updated',
          resourceType: 'user',
          resourceId: userId,
          actorUserId: userId,
          audienceUserIds: [userId],
          data: profile,
        });
        return profile;
      });
    },

    async getProfile(request) {
      const user = await getUser(ctx.db, request.params.userId);
      if (!user) throw notFound('user');
      return presentPublicProfile(ctx.db, user);
    },
  };
}
