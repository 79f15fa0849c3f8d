ALTER TABLE "events" ADD COLUMN "dispatched_at" timestamp with time zone;--> statement-breakpoint
-- Events written before the relay existed are history: nobody subscribed to them then.
UPDATE "events" SET "dispatched_at" = "created_at";--> statement-breakpoint
CREATE INDEX "events_undispatched_idx" ON "events" USING btree ("id") WHERE dispatched_at is null;
