-- Discovery's walks with a compensation type filter (docs/search.md, "Candidates"), hand-written
-- like 0012-0014. Along gigs_open_posted_cover_idx such a walk reads every type's entries to find
-- its own: "python developer" among hourly gigs of at least $80 walked 30,000 entries for each of
-- two arms (4.7-5.3 ms each at 100,000 gigs). The type's own posted_at index holds that type's
-- gigs only but sent each entry to the table; carrying what the walk tests makes it index-only
-- there too (2.2-2.6 ms for the same arms). It replaces 0003's index on the same key, which the
-- freshness-ordered path used and this one serves as well.
DROP INDEX IF EXISTS "gigs_open_compensation_type_idx";
--> statement-breakpoint
CREATE INDEX "gigs_open_type_cover_idx" ON "gigs" ("compensation_type", "posted_at" DESC, "id" DESC)
  INCLUDE ("search_head", "tags", "currency", "source", "rate_cents",
    "compensation_min_cents", "compensation_max_cents", "created_at")
  WHERE "status" = 'open';
