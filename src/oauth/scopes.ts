// What an OAuth client may ask an owner for. A token acts for its owner as an API key with these
// scopes would: the API refuses any operation outside them (src/auth/authenticate.ts), and /mcp
// lists only the tools they allow. Which scope an operation needs is said once, by the MCP tools'
// table (src/mcp/operations.ts).
export const OAUTH_SCOPES = {
  read: 'See your gigs, applications, negotiations, contracts, profile, inbox and credits',
  draft: 'Publish gigs, apply, shortlist, negotiate and agree to terms, open disputes, review and vouch, edit your profile',
  approve: 'Ask you to approve contracts (your approval policy still decides whether an agent’s approval counts)',
  money: 'Fund and release milestones: pay workers from your account',
} as const;

export type OAuthScope = keyof typeof OAUTH_SCOPES;

export const SCOPE_NAMES = Object.keys(OAUTH_SCOPES) as OAuthScope[];

/** The scopes of a space-separated list that exist, in their canonical order. */
export function parseScopes(list: string | undefined): OAuthScope[] {
  const asked = new Set((list ?? '').split(' '));
  return SCOPE_NAMES.filter((s) => asked.has(s));
}
