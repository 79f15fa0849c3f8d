// What others see of the owner: their public profile (GET /api/profile/{userId}) with who vouched
// for them and when, and the published reviews they received (newest first, a page at a time).
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api.ts';
import { ShowMore } from '../components/Lists.tsx';
import { Empty, ErrorMessage, Loading, Time } from '../components/States.tsx';
import { when } from '../format.ts';
import { plural, profileKeys, rating, type Review } from '../profile.ts';

const ROLE_LABEL: Record<Review['author_role'], string> = { client: 'as your client', worker: 'as your worker' };

export function PublicProfile({ userId }: { userId: string }) {
  const profile = useQuery({
    queryKey: profileKeys.public(userId),
    queryFn: () => unwrap(api.GET('/api/profile/{userId}', { params: { path: { userId } } })),
  });
  const p = profile.data;
  return (
    <section aria-labelledby="public-heading">
      <h2 id="public-heading">What others see</h2>
      <p className="muted">Anyone signed in sees your name, bio, skills, linked GitHub account, vouches and published reviews.</p>
      {profile.isPending && <Loading what="your public profile" />}
      {profile.isError && <ErrorMessage error={profile.error} onRetry={() => void profile.refetch()} />}
      {p && (
        <>
          <dl className="facts" data-testid="public-profile">
            <div>
              <dt>Name</dt>
              <dd>{p.display_name}</dd>
            </div>
            <div>
              <dt>Skills</dt>
              <dd>{p.skills.length > 0 ? p.skills.join(', ') : 'None listed'}</dd>
            </div>
            <div>
              <dt>GitHub</dt>
              <dd>{p.github ? <a href={p.github.url}>{p.github.login}</a> : 'Not linked'}</dd>
            </div>
            <div>
              <dt>Vouches</dt>
              <dd>{plural(p.vouch_count, 'vouch', 'vouches')}</dd>
            </div>
            <div>
              <dt>Reviews</dt>
              <dd>
                {plural(p.review_count, 'review', 'reviews')}, {rating(p.average_rating)}
              </dd>
            </div>
          </dl>
          {p.bio && <p className="prose bio">{p.bio}</p>}
          <h3 id="vouches-heading">Vouched for you</h3>
          {p.vouched_by.length === 0 ? (
            <Empty>Nobody has vouched for you yet. Other users can vouch for you through the API (POST /api/vouches).</Empty>
          ) : (
            <ul className="vouches" aria-labelledby="vouches-heading" data-testid="vouches">
              {p.vouched_by.map((v) => (
                <li key={v.user_id}>
                  <strong>{v.display_name}</strong>, <Time iso={v.vouched_at} format={when} />
                </li>
              ))}
              {p.vouch_count > p.vouched_by.length && (
                <li className="muted">and {plural(p.vouch_count - p.vouched_by.length, 'earlier vouch', 'earlier vouches')}</li>
              )}
            </ul>
          )}
        </>
      )}
      <Reviews userId={userId} />
    </section>
  );
}

function Reviews({ userId }: { userId: string }) {
  const list = useInfiniteQuery({
    queryKey: profileKeys.reviews(userId),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(api.GET('/api/profile/{userId}/reviews', { params: { path: { userId }, query: { limit: 20, cursor: pageParam } } })),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const reviews = list.data?.pages.flatMap((p) => p.data);
  return (
    <>
      <h3>Reviews you received</h3>
      {list.isPending && <Loading what="your reviews" />}
      {list.isError && <ErrorMessage error={list.error} onRetry={() => void list.refetch()} />}
      {reviews && reviews.length === 0 && (
        <Empty>No published reviews yet. A review is published once both sides reviewed a contract, or 14 days after it ended.</Empty>
      )}
      {reviews && reviews.length > 0 && (
        <ul className="reviews" data-testid="reviews">
          {reviews.map((r) => (
            <li key={r.id}>
              <p>
                <strong>{r.rating} of 5</strong> from {r.author_display_name} {ROLE_LABEL[r.author_role]}, for “{r.gig_title}”
              </p>
              {r.text && <p className="prose">{r.text}</p>}
              <p className="muted small">
                Written <Time iso={r.created_at} format={when} />, published <Time iso={r.published_at} format={when} />
              </p>
            </li>
          ))}
        </ul>
      )}
      <ShowMore list={list} />
    </>
  );
}
