// Hash routing (`#/contracts/{id}`): the server serves one page at `/`, and links such as the MCP
// server's approval link (`PUBLIC_URL/#/contracts/{id}`) open the right view without a server route.
import { useSyncExternalStore } from 'react';

export type Route =
  | { page: 'overview' }
  | { page: 'contracts' }
  | { page: 'contract'; id: string }
  | { page: 'keys' }
  | { page: 'negotiations' }
  | { page: 'negotiation'; id: string }
  | { page: 'gigs' }
  | { page: 'gig'; id: string }
  | { page: 'notifications' }
  | { page: 'credits' }
  | { page: 'disputes' }
  | { page: 'dispute'; id: string }
  | { page: 'webhooks' }
  | { page: 'webhook'; id: string }
  | { page: 'profile' }
  | { page: 'authorize'; uid: string }
  | { page: 'not-found'; path: string };

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '') || '/';
  if (path === '/' || path === '/overview') return { page: 'overview' };
  if (path === '/contracts') return { page: 'contracts' };
  if (path === '/keys') return { page: 'keys' };
  if (path === '/negotiations') return { page: 'negotiations' };
  const negotiation = /^\/negotiations\/([^/?#]+)$/.exec(path);
  if (negotiation) return { page: 'negotiation', id: decodeURIComponent(negotiation[1]!) };
  if (path === '/gigs') return { page: 'gigs' };
  if (path === '/notifications') return { page: 'notifications' };
  if (path === '/credits') return { page: 'credits' };
  if (path === '/webhooks') return { page: 'webhooks' };
  const webhook = /^\/webhooks\/([^/?#]+)$/.exec(path);
  if (webhook) return { page: 'webhook', id: decodeURIComponent(webhook[1]!) };
  if (path === '/profile') return { page: 'profile' };
  const gig = /^\/gigs\/([^/?#]+)$/.exec(path);
  if (gig) return { page: 'gig', id: decodeURIComponent(gig[1]!) };
  if (path === '/disputes') return { page: 'disputes' };
  const dispute = /^\/disputes\/([^/?#]+)$/.exec(path);
  if (dispute) return { page: 'dispute', id: decodeURIComponent(dispute[1]!) };
  // Where the OAuth authorization server sends the owner to consent (src/oauth/provider.ts).
  const authorize = /^\/authorize\/([^/?#]+)$/.exec(path);
  if (authorize) return { page: 'authorize', uid: decodeURIComponent(authorize[1]!) };
  const contract = /^\/contracts\/([^/?#]+)$/.exec(path);
  if (contract) return { page: 'contract', id: decodeURIComponent(contract[1]!) };
  return { page: 'not-found', path };
}

export const href = {
  overview: '#/',
  contracts: '#/contracts',
  contract: (id: string) => `#/contracts/${encodeURIComponent(id)}`,
  keys: '#/keys',
  negotiations: '#/negotiations',
  negotiation: (id: string) => `#/negotiations/${encodeURIComponent(id)}`,
  gigs: '#/gigs',
  gig: (id: string) => `#/gigs/${encodeURIComponent(id)}`,
  notifications: '#/notifications',
  credits: '#/credits',
  disputes: '#/disputes',
  dispute: (id: string) => `#/disputes/${encodeURIComponent(id)}`,
  webhooks: '#/webhooks',
  webhook: (id: string) => `#/webhooks/${encodeURIComponent(id)}`,
  profile: '#/profile',
};

let navigated = false;
window.addEventListener('hashchange', () => {
  navigated = true;
});

/** Whether the hash changed since the page loaded (a page then takes the focus: PageTitle). */
export const hasNavigated = () => navigated;

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

/** The current route; re-renders on every hash change. */
export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash);
  return parseRoute(hash);
}

// Sign-in leaves the page (GitHub, the dev sign-in) and the server redirects back to `/`, which
// would drop the hash: an owner who opened an approval link signed out would land on the Overview.
// The route is kept in this tab's sessionStorage across the trip.
const AFTER_SIGN_IN = 'gigmarket:after-sign-in';

/** Signed out on a page other than the Overview: remember it for after the sign-in. */
export function rememberRouteForSignIn(): void {
  const { hash } = window.location;
  if (hash && hash !== '#' && hash !== '#/') window.sessionStorage.setItem(AFTER_SIGN_IN, hash);
}

/** Signed in: back to the remembered page, when the sign-in brought us to the bare `/`. */
export function restoreRouteAfterSignIn(): void {
  const hash = window.sessionStorage.getItem(AFTER_SIGN_IN);
  if (!hash) return;
  window.sessionStorage.removeItem(AFTER_SIGN_IN);
  if (!window.location.hash || window.location.hash === '#/') window.location.replace(hash);
}
