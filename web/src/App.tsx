// The dashboard: signed out, the sign-in; signed in, the page the hash names inside the layout.
import { Layout } from './components/Layout.tsx';
import { PageTitle } from './components/PageTitle.tsx';
import { ErrorMessage, Loading } from './components/States.tsx';
import { Authorize } from './pages/Authorize.tsx';
import { ContractPage } from './pages/ContractPage.tsx';
import { Contracts } from './pages/Contracts.tsx';
import { Credits } from './pages/Credits.tsx';
import { DisputePage } from './pages/DisputePage.tsx';
import { Disputes } from './pages/Disputes.tsx';
import { GigPage } from './pages/GigPage.tsx';
import { Gigs } from './pages/Gigs.tsx';
import { Keys } from './pages/Keys.tsx';
import { NegotiationPage } from './pages/NegotiationPage.tsx';
import { Negotiations } from './pages/Negotiations.tsx';
import { Notifications } from './pages/Notifications.tsx';
import { Overview } from './pages/Overview.tsx';
import { Profile } from './pages/Profile.tsx';
import { SignIn } from './pages/SignIn.tsx';
import { WebhookPage } from './pages/WebhookPage.tsx';
import { Webhooks } from './pages/Webhooks.tsx';
import { useMe } from './queries.ts';
import { useEffect } from 'react';
import { href, restoreRouteAfterSignIn, useRoute } from './router.ts';

export function App() {
  const me = useMe();
  const route = useRoute();
  const signedIn = Boolean(me.data);
  useEffect(() => {
    if (signedIn) restoreRouteAfterSignIn();
  }, [signedIn]);
  if (me.isPending)
    return (
      <main id="main" className="narrow">
        <Loading what="your session" />
      </main>
    );
  if (me.isError)
    return (
      <main id="main" className="narrow">
        <ErrorMessage error={me.error} onRetry={() => void me.refetch()} />
      </main>
    );
  if (!me.data) return <SignIn />;
  return (
    <Layout me={me.data} route={route}>
      {route.page === 'overview' && <Overview me={me.data} />}
      {route.page === 'contracts' && <Contracts me={me.data} />}
      {route.page === 'contract' && <ContractPage key={route.id} id={route.id} me={me.data} />}
      {route.page === 'keys' && <Keys />}
      {route.page === 'negotiations' && <Negotiations me={me.data} />}
      {route.page === 'negotiation' && <NegotiationPage key={route.id} id={route.id} me={me.data} />}
      {route.page === 'gigs' && <Gigs />}
      {route.page === 'gig' && <GigPage key={route.id} id={route.id} me={me.data} />}
      {route.page === 'notifications' && <Notifications />}
      {route.page === 'credits' && <Credits />}
      {route.page === 'disputes' && <Disputes me={me.data} />}
      {route.page === 'dispute' && <DisputePage key={route.id} id={route.id} me={me.data} />}
      {route.page === 'webhooks' && <Webhooks />}
      {route.page === 'webhook' && <WebhookPage key={route.id} id={route.id} />}
      {route.page === 'profile' && <Profile me={me.data} />}
      {route.page === 'authorize' && <Authorize key={route.uid} uid={route.uid} />}
      {route.page === 'not-found' && (
        <>
          <PageTitle title="Not found">Nothing here</PageTitle>
          <p>
            There is no page at <code>#{route.path}</code>. Go to the <a href={href.overview}>overview</a>.
          </p>
        </>
      )}
    </Layout>
  );
}
