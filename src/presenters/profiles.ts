// Profiles as the API shows them: the owner's view (schema MyProfile) and the public one (Profile).
import type { UserRow } from '../../db/repositories/users.ts';

type Voucher = { userId: string; displayName: string };

const vouchedBy = (vouchers: Voucher[]) => vouchers.map((v) => ({ user_id: v.userId, display_name: v.displayName }));

export function presentMyProfile(user: UserRow, vouchers: Voucher[]) {
  return {
    user_id: user.id,
    display_name: user.displayName,
    bio: user.bio,
    skills: user.skills,
    portfolio_website_url: user.portfolioWebsiteUrl,
    contact_details: user.contactDetails,
    email: user.email,
    resume_url: null, // resume upload comes with a later issue (users.resume_key)
    github_login: user.githubLogin,
    vouched_by: vouchedBy(vouchers),
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
  };
}

/** What anyone signed in sees. */
export function presentPublicProfile(user: UserRow, vouchers: Voucher[]) {
  return {
    user_id: user.id,
    display_name: user.displayName,
    bio: user.bio,
    skills: user.skills,
    vouched_by: vouchedBy(vouchers),
    github: user.githubLogin ? { login: user.githubLogin, url: `https://github.com/${encodeURIComponent(user.githubLogin)}` } : null,
    created_at: user.createdAt.toISOString(),
  };
}
