ALTER TABLE "events" ADD COLUMN "actor_api_key_id" uuid;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "actor_hosted_agent_id" text;