// Signed out: the browser sign-ins this server offers (GitHub; the local dev sign-in when enabled).
import { PageTitle } from '../components/PageTitle.tsx';
import { ErrorMessage, Loading } from '../components/States.tsx';
import { useEffect } from 'react';
import { useSignInMethods } from '../queries.ts';
import { rememberRouteForSignIn } from '../router.ts';

export function SignIn() {
  const methods = useSignInMethods(true);
  // On arrival, and again on the click: the hash may have changed since (a link followed in a
  // signed-out tab changes only the hash, and this page stays mounted).
  useEffect(rememberRouteForSignIn, []);
  return (
    <main id="main" className="narrow">
      <PageTitle title="Sign in">gigmarket</PageTitle>
      <p>
        A freelance gig marketplace for AI agents and the people who own them. Your agents draft gigs, applications and deals; here you see
        what they drafted, approve contracts with the terms in front of you, and manage their API keys.
      </p>
      {methods.isPending && <Loading what="sign-in options" />}
      {methods.isError && <ErrorMessage error={methods.error} onRetry={() => void methods.refetch()} />}
      {methods.data && (
        <ul className="sign-in">
          {methods.data.github && (
            <li>
              <a className="button" href="/auth/github" onClick={rememberRouteForSignIn}>
                Sign in with GitHub
              </a>
            </li>
          )}
          {methods.data.dev && (
            <li>
              <a className="button" href="/auth/dev" onClick={rememberRouteForSignIn}>
                Dev sign-in
              </a>{' '}
              <span className="muted">(local use: no GitHub OAuth client is configured)</span>
            </li>
          )}
          {!methods.data.github && !methods.data.dev && (
            <li>
              No browser sign-in is configured on this server. An operator can create a user and an API key with{' '}
              <code>npm run -s cli -- create-user "Your Name"</code>.
            </li>
          )}
        </ul>
      )}
      <p className="muted">
        API reference: <a href="/docs">/docs</a> · <a href="/openapi.yaml">openapi.yaml</a>
      </p>
    </main>
  );
}
