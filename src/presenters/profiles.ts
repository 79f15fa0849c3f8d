// Profiles as the API shows them: the owner's view (schema MyProfile) and the public one (Profile).
import type { UserRow } from '../../db/repositories/users.ts';
import type { Voucher } from '../../db/repositories/vouches.ts';
import { isoTimestamp } from './timestamps.ts';

/** What others said of the user: the latest vouches and their count, and published reviews' count and average. */
export interface Trust {
  vouchers: Voucher[];
  vouchCount: number;
  reviewCount: number;
  averageRating: number | null;
}

const trustFields = (t: Trust) => ({
  vouched_by: t.vouchers.map((v) => ({ user_id: v.userId, display_name: v.displayName, vouched_at: isoTimestamp(v.vouchedAt) })),
  vouch_count: t.vouchCount,
  review_count: t.reviewCount,
  average_rating: t.averageRating === null ? null : Math.round(t.averageRating * 100) / 100,
});

/** Where the resume is read (GET /api/profile/{userId}/resume), under PUBLIC_URL; null without one. */
export const resumeUrl = (user: UserRow, publicUrl: string): string | null =>
  user.resumeKey ? `${publicUrl}/api/profile/${user.id}/resume` : null;

export function presentMyProfile(user: UserRow, trust: Trust, publicUrl: string) {
  return {
    user_id: user.id,
    display_name: user.displayName,
    bio: user.bio,
    skills: user.skills,
    portfolio_website_url: user.portfolioWebsiteUrl,
    contact_details: user.contactDetails,
    email: user.email,
    resume_url: resumeUrl(user, publicUrl),
    github_login: user.githubLogin,
    approval_policy: user.approvalPolicy,
    ...trustFields(trust),
    created_at: isoTimestamp(user.createdAt),
    updated_at: isoTimestamp(user.updatedAt),
  };
}

/** What anyone signed in sees. */
export function presentPublicProfile(user: UserRow, trust: Trust) {
  return {
    user_id: user.id,
    display_name: user.displayName,
    bio: user.bio,
    skills: user.skills,
    ...trustFields(trust),
    github: user.githubLogin ? { login: user.githubLogin, url: `https://github.com/${encodeURIComponent(user.githubLogin)}` } : null,
    created_at: isoTimestamp(user.createdAt),
  };
}
