// Contract reviews. A contract's reviews are read by its parties (the service checks who asks);
// published reviews are public, by reviewee.
import { and, asc, avg, count, desc, eq, inArray, isNotNull, isNull, lt, lte, sql } from 'drizzle-orm';
import { preparedQuery } from '../prepared.ts';
import { contracts, gigs, reviews, users } from '../schema.ts';
import type { Executor } from '../client.ts';

export type ReviewRow = typeof reviews.$inferSelect;

/** The new review, or undefined when its author already reviewed this contract (a concurrent twin included). */
export async function insertReview(tx: Executor, values: typeof reviews.$inferInsert & { id: string }): Promise<ReviewRow | undefined> {
  const [row] = await tx.insert(reviews).values(values).onConflictDoNothing().returning();
  return row;
}

export async function listContractReviews(db: Executor, contractId: string): Promise<ReviewRow[]> {
  return db.select().from(reviews).where(eq(reviews.contractId, contractId)).orderBy(asc(reviews.id));
}

/** Publishes those of these reviews still blind; returns the ones this call published (each once, whoever races). */
export async function publishReviews(tx: Executor, ids: string[], at: Date): Promise<ReviewRow[]> {
  if (ids.length === 0) return [];
  return tx
    .update(reviews)
    .set({ publishedAt: at })
    .where(and(inArray(reviews.id, ids), isNull(reviews.publishedAt)))
    .returning();
}

/** Blind reviews of contracts completed at or before `completedBy`, locked; rows another run holds are skipped. */
export async function lockDueReviews(tx: Executor, completedBy: Date, limit: number): Promise<ReviewRow[]> {
  const rows = await tx
    .select({ review: reviews })
    .from(reviews)
    .innerJoin(contracts, eq(contracts.id, reviews.contractId))
    .where(and(isNull(reviews.publishedAt), lte(contracts.completedAt, completedBy)))
    .orderBy(asc(reviews.id))
    .limit(limit)
    .for('update', { of: reviews, skipLocked: true });
  return rows.map((r) => r.review);
}

export interface PublishedReviewRow {
  id: string;
  rating: number;
  text: string;
  authorUserId: string;
  authorDisplayName: string;
  authorRole: 'client' | 'worker';
  gigId: string;
  gigTitle: string;
  createdAt: Date;
  publishedAt: Date;
}

/** The user's published reviews, newest first (by id: when each was written); limit + 1 rows for paging. */
export async function listPublishedReviews(
  db: Executor,
  revieweeUserId: string,
  page: { limit: number; beforeId?: string },
): Promise<PublishedReviewRow[]> {
  const rows = await db
    .select({
      id: reviews.id,
      rating: reviews.rating,
      text: reviews.text,
      authorUserId: reviews.authorUserId,
      authorDisplayName: users.displayName,
      authorRole: reviews.authorRole,
      gigId: contracts.gigId,
      gigTitle: gigs.title,
      createdAt: reviews.createdAt,
      publishedAt: reviews.publishedAt,
    })
    .from(reviews)
    .innerJoin(users, eq(users.id, reviews.authorUserId))
    .innerJoin(contracts, eq(contracts.id, reviews.contractId))
    .innerJoin(gigs, eq(gigs.id, contracts.gigId))
    .where(
      and(
        eq(reviews.revieweeUserId, revieweeUserId),
        isNotNull(reviews.publishedAt),
        page.beforeId ? lt(reviews.id, page.beforeId) : undefined,
      ),
    )
    .orderBy(desc(reviews.id))
    .limit(page.limit + 1);
  return rows.map((r) => ({ ...r, publishedAt: r.publishedAt! }));
}

/** How many published reviews the user received, and their average rating (null without any). */
export async function ratingSummary(db: Executor, revieweeUserId: string): Promise<{ count: number; average: number | null }> {
  const [row] = await readRatingSummary(db, { revieweeUserId });
  return { count: row?.n ?? 0, average: row?.average == null ? null : Number(row.average) };
}

// Every profile view reads it: a prepared query (db/prepared.ts).
const readRatingSummary = preparedQuery('read_rating_summary', (db, name) =>
  db
    .select({ n: count(), average: avg(reviews.rating) })
    .from(reviews)
    .where(and(eq(reviews.revieweeUserId, sql.placeholder('revieweeUserId')), isNotNull(reviews.publishedAt)))
    .prepare(name),
);
