-- Discovery on the gigs table (DESIGN §8), hand-written because drizzle-kit cannot express it.
-- Lexical search: a stored generated tsvector (title A > tags B > description C > scope D, the
-- 'english' configuration, so stemmed) with a GIN index. Filters: a GIN index on tags (`&&`)
-- and partial btree indexes; every index covers open gigs only, the only ones discovery shows.

-- array_to_string is only STABLE (it formats any array type); for text[] it cannot change.
CREATE FUNCTION gm_tags_text(text[]) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT array_to_string($1, ' ') $$;
--> statement-breakpoint
ALTER TABLE "gigs" ADD COLUMN "search_tsv" tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english'::regconfig, "title"), 'A') ||
  setweight(to_tsvector('english'::regconfig, coalesce(gm_tags_text("tags"), '')), 'B') ||
  setweight(to_tsvector('english'::regconfig, "description"), 'C') ||
  setweight(to_tsvector('english'::regconfig, "scope"), 'D')
) STORED;
--> statement-breakpoint
CREATE INDEX "gigs_open_search_tsv_idx" ON "gigs" USING gin ("search_tsv") WHERE "status" = 'open';
--> statement-breakpoint
CREATE INDEX "gigs_open_tags_idx" ON "gigs" USING gin ("tags") WHERE "status" = 'open';
--> statement-breakpoint
-- Freshness order, alone and after each equality filter.
CREATE INDEX "gigs_open_posted_idx" ON "gigs" ("posted_at" DESC, "id" DESC) WHERE "status" = 'open';
--> statement-breakpoint
CREATE INDEX "gigs_open_compensation_type_idx" ON "gigs" ("compensation_type", "posted_at" DESC, "id" DESC) WHERE "status" = 'open';
--> statement-breakpoint
CREATE INDEX "gigs_open_currency_idx" ON "gigs" ("currency", "posted_at" DESC, "id" DESC) WHERE "status" = 'open';
--> statement-breakpoint
CREATE INDEX "gigs_open_source_idx" ON "gigs" ("source", "posted_at" DESC, "id" DESC) WHERE "status" = 'open';
--> statement-breakpoint
-- min_compensation_cents compares with the top of the stated pay (db/repositories/search.ts).
CREATE INDEX "gigs_open_pay_high_idx" ON "gigs" ((coalesce("compensation_max_cents", "rate_cents", "compensation_min_cents"))) WHERE "status" = 'open';
--> statement-breakpoint
-- The stated pay as a range: the gigs whose pay only reaches a minimum at its top (a partial fit)
-- are the ranges that contain it.
CREATE INDEX "gigs_open_pay_range_idx" ON "gigs" USING gist ((int4range(
  least(coalesce("compensation_min_cents", "rate_cents", "compensation_max_cents"), coalesce("compensation_max_cents", "rate_cents", "compensation_min_cents")),
  greatest(coalesce("compensation_min_cents", "rate_cents", "compensation_max_cents"), coalesce("compensation_max_cents", "rate_cents", "compensation_min_cents")),
  '[]'))) WHERE "status" = 'open' AND coalesce("compensation_max_cents", "rate_cents", "compensation_min_cents") IS NOT NULL;
--> statement-breakpoint
-- Workers recommended for a gig: profile skills overlapping the gig's tags.
CREATE INDEX "users_skills_idx" ON "users" USING gin ("skills");
--> statement-breakpoint
-- pgvector where the server has it (PGlite loads it before migrating; Debian's Postgres 15 here
-- does not have it, and discovery then scans embeddings exactly).
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
    CREATE EXTENSION IF NOT EXISTS vector;
  END IF;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'pgvector not enabled: %', SQLERRM;
END
$$;
