// Contract reviews: each party of a completed contract reviews the other once; double-blind until
// both have reviewed or the review period ends (src/domain/review.ts).
import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { at, createdAt, oneOf } from './columns.ts';
import { PARTY_ROLES, RATING_MAX, RATING_MIN, REVIEW_TEXT_MAX } from './column-values.ts';
import { users } from './identity.ts';
import { contracts } from './contracts.ts';

export const reviews = pgTable(
  'reviews',
  {
    id: uuid('id').primaryKey(),
    contractId: uuid('contract_id')
      .notNull()
      .references(() => contracts.id),
    authorUserId: uuid('author_user_id')
      .notNull()
      .references(() => users.id),
    authorRole: text('author_role', { enum: PARTY_ROLES }).notNull(),
    revieweeUserId: uuid('reviewee_user_id')
      .notNull()
      .references(() => users.id),
    rating: integer('rating').notNull(),
    text: text('text').notNull(),
    createdAt: createdAt(),
    /** When the other party (and everyone) may see it; null while it is blind. */
    publishedAt: at('published_at'),
  },
  (t) => [
    // One review per party and contract: of two concurrent submissions, one is stored.
    uniqueIndex('reviews_contract_author_key').on(t.contractId, t.authorUserId),
    // A profile's published reviews, newest first.
    index('reviews_published_reviewee_idx').on(t.revieweeUserId, t.id).where(sql`published_at is not null`),
    // The publication job's scan: only reviews still blind.
    index('reviews_blind_idx').on(t.contractId).where(sql`published_at is null`),
    check('reviews_author_role_check', oneOf(t.authorRole, PARTY_ROLES)),
    check('reviews_rating_check', sql`${t.rating} between ${sql.raw(String(RATING_MIN))} and ${sql.raw(String(RATING_MAX))}`),
    check('reviews_text_check', sql`char_length(${t.text}) between 1 and ${sql.raw(String(REVIEW_TEXT_MAX))}`),
    check('reviews_not_self', sql`${t.authorUserId} <> ${t.revieweeUserId}`),
  ],
);
