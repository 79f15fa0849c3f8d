// A gig at `#/gigs/{id}`: its title, description (as text), tags, pay and status, what its client
// can do with it, and its applications.
import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Me } from '../api.ts';
import { PageTitle } from '../components/PageTitle.tsx';
import { ErrorMessage, Loading, Time } from '../components/States.tsx';
import { when } from '../format.ts';
import { GIG_STATUS_LABEL, marketKeys } from '../market.ts';
import { href } from '../router.ts';
import { Applications } from './Applications.tsx';
import { Compensation, GigStatusActions } from './GigFacts.tsx';
import '../market.css';

export function GigPage({ id, me }: { id: string; me: Me }) {
  const gig = useQuery({
    queryKey: marketKeys.gig(id),
    queryFn: () => unwrap(api.GET('/api/gigs/{id}', { params: { path: { id } } })),
  });
  if (gig.isPending || gig.isError)
    return (
      <>
        <PageTitle title="Gig">Gig</PageTitle>
        {gig.isPending ? <Loading what="the gig" /> : <ErrorMessage error={gig.error} onRetry={() => void gig.refetch()} />}
        <p>
          <a href={href.gigs}>All your gigs</a>
        </p>
      </>
    );
  const g = gig.data;
  return (
    <>
      <p className="crumbs">
        <a href={href.gigs}>Gigs</a> /
      </p>
      <PageTitle title="Gig">{g.title}</PageTitle>
      <p className="lead">
        <span className={`status status-${g.status}`}>{GIG_STATUS_LABEL[g.status]}</span> <Compensation gig={g} />. Posted{' '}
        <Time iso={g.posted_at} format={when} />.
      </p>
      {g.tags.length > 0 && (
        <ul className="tags" aria-label="Tags">
          {g.tags.map((t) => (
            <li key={t}>{t}</li>
          ))}
        </ul>
      )}
      <section aria-labelledby="description-heading">
        <h2 id="description-heading">Description</h2>
        {g.description ? <p className="prose">{g.description}</p> : <p className="muted">No description.</p>}
        {g.scope && (
          <>
            <h3>Scope</h3>
            <p className="prose">{g.scope}</p>
          </>
        )}
      </section>
      {g.client_user_id === me.user_id ? (
        <>
          <section aria-labelledby="gig-status-heading">
            <h2 id="gig-status-heading">Status</h2>
            <GigStatusActions gig={g} />
          </section>
          <Applications gig={g} />
        </>
      ) : (
        <p className="notice">This gig is not yours: only its client sees its applications.</p>
      )}
    </>
  );
}
