-- A side table for the 'tags' arm of two-phase discovery (docs/search.md, "Candidates"),
-- hand-written like 0012 and 0013. Through the GIN index gigs_open_tags_idx an arm reads every
-- open gig carrying one of its tags, in table rows, to keep the newest 300 (2.9-3.9 ms for
-- 1,753 rows at 100,000 gigs); here each tag's open gigs lie newest first in one btree range,
-- so the arm reads its newest few per tag and stops (0.6-1.1 ms for the same gigs).
-- One row per distinct tag of each open gig, kept by the trigger below; a gig's deletion takes
-- its rows with it (the cascade).
CREATE TABLE "open_gig_tags" (
  "tag" text NOT NULL,
  "posted_at" timestamptz NOT NULL,
  "gig_id" uuid NOT NULL REFERENCES "gigs"("id") ON DELETE CASCADE
);
--> statement-breakpoint
-- The read: one tag, newest first, ties broken by id as everywhere in the first phase.
CREATE UNIQUE INDEX "open_gig_tags_tag_posted_idx" ON "open_gig_tags" ("tag", "posted_at" DESC, "gig_id" DESC);
--> statement-breakpoint
-- The trigger's and the cascade's deletions by gig.
CREATE INDEX "open_gig_tags_gig_idx" ON "open_gig_tags" ("gig_id");
--> statement-breakpoint
-- A gig's rows are rewritten whenever what they hold may change: its tags, its status (only an
-- open gig has rows), its posted_at.
CREATE FUNCTION "open_gig_tags_sync"() RETURNS trigger
LANGUAGE plpgsql AS $$ BEGIN
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM open_gig_tags WHERE gig_id = OLD.id;
  END IF;
  IF NEW.status = 'open' THEN
    INSERT INTO open_gig_tags (tag, posted_at, gig_id)
      SELECT DISTINCT t.tag, NEW.posted_at, NEW.id FROM unnest(NEW.tags) AS t(tag) WHERE t.tag IS NOT NULL;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "open_gig_tags_insert" AFTER INSERT ON "gigs"
  FOR EACH ROW EXECUTE FUNCTION "open_gig_tags_sync"();
--> statement-breakpoint
-- Only when one of the three changed: most updates of a gig (its title, its counts) leave them.
CREATE TRIGGER "open_gig_tags_update" AFTER UPDATE OF "tags", "status", "posted_at" ON "gigs"
  FOR EACH ROW WHEN (OLD."tags" IS DISTINCT FROM NEW."tags" OR OLD."status" IS DISTINCT FROM NEW."status"
    OR OLD."posted_at" IS DISTINCT FROM NEW."posted_at")
  EXECUTE FUNCTION "open_gig_tags_sync"();
--> statement-breakpoint
INSERT INTO "open_gig_tags" ("tag", "posted_at", "gig_id")
  SELECT DISTINCT t.tag, g."posted_at", g."id" FROM "gigs" g CROSS JOIN LATERAL unnest(g."tags") AS t(tag)
  WHERE g."status" = 'open' AND t.tag IS NOT NULL;
