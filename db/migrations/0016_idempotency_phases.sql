ALTER TABLE "idempotency_keys" ADD COLUMN "locked_by" uuid;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "phases" jsonb DEFAULT '{}'::jsonb NOT NULL;