ALTER TABLE "mcp_sessions" DROP CONSTRAINT "mcp_sessions_principal_kind_check";--> statement-breakpoint
ALTER TABLE "mcp_messages" ALTER COLUMN "message" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "mcp_sessions" ADD CONSTRAINT "mcp_sessions_principal_kind_check" CHECK ("mcp_sessions"."principal_kind" = 'api_key');