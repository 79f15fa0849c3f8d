CREATE TABLE "dispute_evidence" (
	"id" uuid PRIMARY KEY NOT NULL,
	"dispute_id" uuid NOT NULL,
	"author_user_id" uuid NOT NULL,
	"author_role" text NOT NULL,
	"kind" text NOT NULL,
	"text" text,
	"file_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dispute_evidence_kind_check" CHECK ("dispute_evidence"."kind" in ('text', 'file')),
	CONSTRAINT "dispute_evidence_author_role_check" CHECK ("dispute_evidence"."author_role" in ('client', 'worker')),
	CONSTRAINT "dispute_evidence_content_check" CHECK (("dispute_evidence"."kind" = 'text' and "dispute_evidence"."file_id" is null and char_length("dispute_evidence"."text") between 1 and 5000) or ("dispute_evidence"."kind" = 'file' and "dispute_evidence"."file_id" is not null and "dispute_evidence"."text" is null))
);
--> statement-breakpoint
CREATE TABLE "disputes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"contract_id" uuid NOT NULL,
	"opener_user_id" uuid NOT NULL,
	"opener_role" text NOT NULL,
	"status" text NOT NULL,
	"reason" text NOT NULL,
	"description" text NOT NULL,
	"milestone_ids" uuid[] NOT NULL,
	"response" text,
	"responded_at" timestamp with time zone,
	"client_acceptance" jsonb,
	"worker_acceptance" jsonb,
	"recommendation" jsonb,
	"resolution" jsonb,
	"resolved_at" timestamp with time zone,
	"settled_at" timestamp with time zone,
	"withdrawn_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "disputes_status_check" CHECK ("disputes"."status" in ('open', 'responded', 'resolved', 'withdrawn')),
	CONSTRAINT "disputes_reason_check" CHECK ("disputes"."reason" in ('work_not_delivered', 'work_not_as_agreed', 'payment_withheld', 'scope_disagreement', 'other')),
	CONSTRAINT "disputes_opener_role_check" CHECK ("disputes"."opener_role" in ('client', 'worker')),
	CONSTRAINT "disputes_description_check" CHECK (char_length("disputes"."description") between 1 and 5000),
	CONSTRAINT "disputes_milestones_check" CHECK (cardinality("disputes"."milestone_ids") >= 1)
);
--> statement-breakpoint
ALTER TABLE "milestones" DROP CONSTRAINT "milestones_status_check";--> statement-breakpoint
ALTER TABLE "stored_files" DROP CONSTRAINT "stored_files_purpose_check";--> statement-breakpoint
ALTER TABLE "milestones" ADD COLUMN "refunded_cents" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "milestones" ADD COLUMN "refund_id" text;--> statement-breakpoint
ALTER TABLE "dispute_evidence" ADD CONSTRAINT "dispute_evidence_dispute_id_disputes_id_fk" FOREIGN KEY ("dispute_id") REFERENCES "public"."disputes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dispute_evidence" ADD CONSTRAINT "dispute_evidence_author_user_id_users_id_fk" FOREIGN KEY ("author_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dispute_evidence" ADD CONSTRAINT "dispute_evidence_file_id_stored_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."stored_files"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "disputes" ADD CONSTRAINT "disputes_contract_id_contracts_id_fk" FOREIGN KEY ("contract_id") REFERENCES "public"."contracts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "disputes" ADD CONSTRAINT "disputes_opener_user_id_users_id_fk" FOREIGN KEY ("opener_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dispute_evidence_dispute_idx" ON "dispute_evidence" USING btree ("dispute_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "disputes_live_contract_key" ON "disputes" USING btree ("contract_id") WHERE status in ('open', 'responded');--> statement-breakpoint
CREATE INDEX "disputes_contract_idx" ON "disputes" USING btree ("contract_id","id");--> statement-breakpoint
ALTER TABLE "milestones" ADD CONSTRAINT "milestones_refunded_check" CHECK ("milestones"."refunded_cents" between 0 and "milestones"."amount_cents");--> statement-breakpoint
ALTER TABLE "milestones" ADD CONSTRAINT "milestones_status_check" CHECK ("milestones"."status" in ('pending', 'funding', 'funded', 'released', 'paid', 'refunded'));--> statement-breakpoint
ALTER TABLE "stored_files" ADD CONSTRAINT "stored_files_purpose_check" CHECK ("stored_files"."purpose" in ('resume', 'dispute_evidence'));