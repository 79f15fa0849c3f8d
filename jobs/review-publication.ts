// Every minute: reviews still blind when their contract's review period (14 days after completion)
// has ended are published. Any number of server processes may run it at once; each review is
// published once, with one event (src/services/reviews.ts).
import { publishDueReviews } from '../src/services/reviews.ts';
import type { JobDefinition } from '../src/job-system/boss.ts';
import { REVIEW_PUBLICATION_QUEUE } from '../src/job-system/queues.ts';
import type { Context } from '../src/context.ts';

export function reviewPublicationJob(ctx: Context): JobDefinition {
  return {
    name: REVIEW_PUBLICATION_QUEUE,
    // Batches of 100 reviews, each a short transaction.
    expireInSeconds: 120,
    cron: '* * * * *',
    async handler() {
      const published = await publishDueReviews(ctx);
      if (published) ctx.log.info({ published }, 'reviews published at the end of their review period');
    },
  };
}
