CREATE TABLE "discovery_feedback" (
	"user_id" uuid NOT NULL,
	"gig_id" uuid NOT NULL,
	"signal" text NOT NULL,
	"context" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "discovery_feedback_user_id_gig_id_pk" PRIMARY KEY("user_id","gig_id"),
	CONSTRAINT "discovery_feedback_signal_check" CHECK ("discovery_feedback"."signal" in ('up', 'down', 'hide')),
	CONSTRAINT "discovery_feedback_context_check" CHECK ("discovery_feedback"."context" is null or "discovery_feedback"."context" in ('search', 'recommendation'))
);
--> statement-breakpoint
CREATE TABLE "gig_embeddings" (
	"gig_id" uuid PRIMARY KEY NOT NULL,
	"model" text NOT NULL,
	"dims" integer NOT NULL,
	"embedding" real[] NOT NULL,
	"content_hash" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "query_embeddings" (
	"model" text NOT NULL,
	"query_hash" text NOT NULL,
	"dims" integer NOT NULL,
	"embedding" real[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "query_embeddings_model_query_hash_pk" PRIMARY KEY("model","query_hash")
);
--> statement-breakpoint
ALTER TABLE "discovery_feedback" ADD CONSTRAINT "discovery_feedback_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "discovery_feedback" ADD CONSTRAINT "discovery_feedback_gig_id_gigs_id_fk" FOREIGN KEY ("gig_id") REFERENCES "public"."gigs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gig_embeddings" ADD CONSTRAINT "gig_embeddings_gig_id_gigs_id_fk" FOREIGN KEY ("gig_id") REFERENCES "public"."gigs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "discovery_feedback_gig_idx" ON "discovery_feedback" USING btree ("gig_id");--> statement-breakpoint
CREATE INDEX "gig_embeddings_model_idx" ON "gig_embeddings" USING btree ("model","dims");--> statement-breakpoint
CREATE INDEX "query_embeddings_created_at_idx" ON "query_embeddings" USING btree ("created_at");