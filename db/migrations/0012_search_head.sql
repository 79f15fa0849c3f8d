-- Two-phase discovery search (docs/search.md, "Candidates"), hand-written like 0003. The first
-- phase takes the newest gigs that match a word in their title or tags, or carry a tag: walking
-- the covering index below in posted_at order finds them without reading the table, so a word
-- found in a seventh of a million gigs costs about as much as one found in a few hundred. Only
-- those candidates are ranked in full (ts_rank over search_tsv).
-- search_head: title (A) and tags (B) only, the fields that weigh most in the ranking; small
-- enough to carry in an index (titles are at most 200 characters).
ALTER TABLE "gigs" ADD COLUMN "search_head" tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english'::regconfig, "title"), 'A') ||
  setweight(to_tsvector('english'::regconfig, coalesce(gm_tags_text("tags"), '')), 'B')
) STORED;
--> statement-breakpoint
-- Newest first, with what the filters and the first phase read, so that the walk is index-only.
CREATE INDEX "gigs_open_posted_cover_idx" ON "gigs" ("posted_at" DESC, "id" DESC)
  INCLUDE ("search_head", "tags", "compensation_type", "currency", "source", "rate_cents",
    "compensation_min_cents", "compensation_max_cents", "created_at")
  WHERE "status" = 'open';
--> statement-breakpoint
-- For a word few titles hold, the bitmap of its matches is cheaper than the walk.
CREATE INDEX "gigs_open_search_head_idx" ON "gigs" USING gin ("search_head") WHERE "status" = 'open';
