CREATE TABLE "mcp_messages" (
	"session_id" uuid NOT NULL,
	"address" text NOT NULL,
	"message" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_messages_session_id_address_pk" PRIMARY KEY("session_id","address")
);
--> statement-breakpoint
CREATE TABLE "mcp_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"principal_kind" text NOT NULL,
	"principal_id" text NOT NULL,
	"initialize" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"closed_at" timestamp with time zone,
	CONSTRAINT "mcp_sessions_principal_kind_check" CHECK ("mcp_sessions"."principal_kind" in ('api_key', 'oauth'))
);
--> statement-breakpoint
ALTER TABLE "mcp_messages" ADD CONSTRAINT "mcp_messages_session_id_mcp_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."mcp_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_sessions" ADD CONSTRAINT "mcp_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mcp_messages_created_at_idx" ON "mcp_messages" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "mcp_sessions_user_live_idx" ON "mcp_sessions" USING btree ("user_id","last_seen_at") WHERE closed_at is null;--> statement-breakpoint
CREATE INDEX "mcp_sessions_last_seen_idx" ON "mcp_sessions" USING btree ("last_seen_at");