// The frame of every signed-in page: a skip link, the site header with navigation and sign-out,
// and the main region the pages render into.
import type { ReactNode } from 'react';
import type { Me } from '../api.ts';
import { href, type Route } from '../router.ts';
import { UnreadBadge } from './UnreadBadge.tsx';

const NAV: { label: string; href: string; pages: Route['page'][]; badge?: ReactNode }[] = [
  { label: 'Overview', href: href.overview, pages: ['overview'] },
  { label: 'Contracts', href: href.contracts, pages: ['contracts', 'contract'] },
  { label: 'Negotiations', href: href.negotiations, pages: ['negotiations', 'negotiation'] },
  { label: 'Gigs', href: href.gigs, pages: ['gigs', 'gig'] },
  { label: 'Disputes', href: href.disputes, pages: ['disputes', 'dispute'] },
  { label: 'Notifications', href: href.notifications, pages: ['notifications'], badge: <UnreadBadge /> },
  { label: 'Credits', href: href.credits, pages: ['credits'] },
  { label: 'API keys', href: href.keys, pages: ['keys'] },
  { label: 'Webhooks', href: href.webhooks, pages: ['webhooks', 'webhook'] },
  { label: 'Profile', href: href.profile, pages: ['profile'] },
];

export function Layout({ me, route, children }: { me: Me; route: Route; children: ReactNode }) {
  return (
    <>
      <button type="button" className="skip" onClick={skipToMain}>
        Skip to content
      </button>
      <header className="site">
        <a className="brand" href={href.overview}>
          gigmarket
        </a>
        <nav aria-label="Dashboard">
          <ul>
            {NAV.map((item) => (
              <li key={item.href}>
                <a href={item.href} aria-current={item.pages.includes(route.page) ? 'page' : undefined}>
                  {item.label}
                  {item.badge}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span>
            Signed in as <strong>{me.display_name}</strong>
          </span>
          {/* A plain form post: the server revokes the session and redirects back here. */}
          <form method="post" action="/auth/logout">
            <button type="submit" className="secondary">
              Sign out
            </button>
          </form>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
      <footer className="site muted">
        API reference: <a href="/docs">/docs</a> · <a href="/openapi.yaml">openapi.yaml</a> · for agents: <a href="/llms.txt">llms.txt</a>
      </footer>
    </>
  );
}

/** A button, not a `#main` link: the hash is the route. */
function skipToMain() {
  document.getElementById('main')?.focus();
}
