// A completed contract's reviews, double-blind: the viewer's own (and, until the other party
// reviews or the period ends, that it stays hidden from them), the other party's once published,
// and the form to write one while the period is open.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, unwrap, type Contract, type Ok } from '../api.ts';
import { ErrorMessage, Loading, Time } from '../components/States.tsx';
import { when } from '../format.ts';
import { reviewKeys } from '../queries.ts';
import '../disputes.css';

type Review = NonNullable<Ok<'/api/contracts/{id}/reviews', 'get'>['yours']>;

export function ContractReviews({ contract: c }: { contract: Contract }) {
  const reviews = useQuery({
    queryKey: reviewKeys.ofContract(c.id),
    enabled: c.status === 'completed',
    queryFn: () => unwrap(api.GET('/api/contracts/{id}/reviews', { params: { path: { id: c.id } } })),
  });
  if (c.status !== 'completed') return null;
  return (
    <section aria-labelledby="reviews-heading">
      <h2 id="reviews-heading">Reviews</h2>
      {reviews.isPending && <Loading what="the reviews" />}
      {reviews.isError && <ErrorMessage error={reviews.error} onRetry={() => void reviews.refetch()} />}
      {reviews.data && (
        <>
          <p className="muted small">
            Double-blind: neither of you sees the other's review until both have written one, or until the review period ends{' '}
            <Time iso={reviews.data.review_deadline} format={when} />.
          </p>
          <h3>Yours</h3>
          {reviews.data.yours ? (
            <ReviewText review={reviews.data.yours} hiddenNote="Not yet visible to the other party." />
          ) : reviews.data.can_review ? (
            <WriteReview contractId={c.id} />
          ) : (
            <p className="muted">You did not review this contract; the review period is over.</p>
          )}
          <h3>Theirs</h3>
          {reviews.data.theirs.review ? (
            <ReviewText review={reviews.data.theirs.review} />
          ) : (
            <p className="muted" data-testid="their-review">
              {reviews.data.theirs.status === 'submitted'
                ? 'They have reviewed you; you will see it once you review them, or when the period ends.'
                : 'Not written yet.'}
            </p>
          )}
        </>
      )}
    </section>
  );
}

function ReviewText({ review: r, hiddenNote }: { review: Review; hiddenNote?: string }) {
  return (
    <figure className="review" data-testid={`review-${r.author_role}`}>
      <p>
        <span aria-hidden="true">{'★'.repeat(r.rating) + '☆'.repeat(5 - r.rating)}</span> <strong>{r.rating} out of 5</strong>
      </p>
      <blockquote className="notes">{r.text}</blockquote>
      <figcaption className="muted small">
        Written <Time iso={r.created_at} format={when} />
        {r.published_at ? (
          <>
            , published <Time iso={r.published_at} format={when} />
          </>
        ) : (
          hiddenNote && <>. {hiddenNote}</>
        )}
      </figcaption>
    </figure>
  );
}

function WriteReview({ contractId }: { contractId: string }) {
  const queryClient = useQueryClient();
  const [rating, setRating] = useState(5);
  const [text, setText] = useState('');
  const textId = useId();
  const write = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/contracts/{id}/reviews', { params: { path: { id: contractId } }, body: { rating, text: text.trim() } })),
    onSuccess: (result) => {
      queryClient.setQueryData(reviewKeys.ofContract(contractId), result);
      void queryClient.invalidateQueries({ queryKey: reviewKeys.all });
    },
  });
  return (
    <form
      className="write-review"
      onSubmit={(e) => {
        e.preventDefault();
        write.mutate();
      }}
    >
      <fieldset>
        <legend>Your rating of the other party</legend>
        {[1, 2, 3, 4, 5].map((n) => (
          <label key={n} className="choice inline">
            <input type="radio" name="rating" value={n} checked={rating === n} onChange={() => setRating(n)} /> {n}
          </label>
        ))}
      </fieldset>
      <label htmlFor={textId}>What you say of them (once; it cannot be changed)</label>
      <textarea id={textId} required maxLength={2000} rows={3} value={text} onChange={(e) => setText(e.target.value)} />
      <button type="submit" className="primary" disabled={write.isPending || !text.trim()}>
        {write.isPending ? 'Sending…' : 'Publish my review'}
      </button>
      {write.isError && <ErrorMessage error={write.error} />}
    </form>
  );
}
