CREATE TABLE "contracts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"negotiation_id" uuid NOT NULL,
	"gig_id" uuid NOT NULL,
	"client_user_id" uuid NOT NULL,
	"worker_user_id" uuid NOT NULL,
	"status" text NOT NULL,
	"round_id" uuid NOT NULL,
	"rate_cents" integer,
	"hours_per_week" integer,
	"start_date" date,
	"payout_delay_days" integer NOT NULL,
	"currency" text NOT NULL,
	"approval_deadline" timestamp with time zone,
	"client_approved_at" timestamp with time zone,
	"worker_approved_at" timestamp with time zone,
	"revision_notes" text,
	"revision_count" integer DEFAULT 0 NOT NULL,
	"activated_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"cancelled_at" timestamp with time zone,
	"expired_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "contracts_status_check" CHECK ("contracts"."status" in ('pending_owner_approval', 'pending_freelancer_kyc', 'active', 'completed', 'disputed', 'cancelled', 'expired', 'negotiation'))
);
--> statement-breakpoint
CREATE TABLE "milestones" (
	"id" uuid PRIMARY KEY NOT NULL,
	"contract_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"title" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"currency" text NOT NULL,
	"due_date" date,
	"status" text NOT NULL,
	"payment_id" text,
	"client_secret" text,
	"transfer_id" text,
	"funded_at" timestamp with time zone,
	"released_at" timestamp with time zone,
	"payout_due_at" timestamp with time zone,
	"paid_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "milestones_status_check" CHECK ("milestones"."status" in ('pending', 'funding', 'funded', 'released', 'paid')),
	CONSTRAINT "milestones_amount_check" CHECK ("milestones"."amount_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "negotiation_rounds" (
	"id" uuid PRIMARY KEY NOT NULL,
	"negotiation_id" uuid NOT NULL,
	"number" integer NOT NULL,
	"proposer_user_id" uuid NOT NULL,
	"proposer_role" text NOT NULL,
	"rate_cents" integer,
	"hours_per_week" integer,
	"start_date" date,
	"payout_delay_days" integer,
	"currency" text NOT NULL,
	"milestones" jsonb NOT NULL,
	"notes" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "negotiation_rounds_role_check" CHECK ("negotiation_rounds"."proposer_role" in ('client', 'worker')),
	CONSTRAINT "negotiation_rounds_payout_delay_check" CHECK ("negotiation_rounds"."payout_delay_days" is null or "negotiation_rounds"."payout_delay_days" between 3 and 10)
);
--> statement-breakpoint
CREATE TABLE "payment_accounts" (
	"user_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"account_id" text NOT NULL,
	"verified_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_accounts_user_id_provider_pk" PRIMARY KEY("user_id","provider")
);
--> statement-breakpoint
CREATE TABLE "provider_events" (
	"provider" text NOT NULL,
	"event_id" text NOT NULL,
	"type" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "provider_events_provider_event_id_pk" PRIMARY KEY("provider","event_id")
);
--> statement-breakpoint
ALTER TABLE "negotiations" ADD COLUMN "client_contact_shared_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "negotiations" ADD COLUMN "worker_contact_shared_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "negotiations" ADD COLUMN "agreed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "negotiations" ADD COLUMN "cancelled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "contact_details" text;--> statement-breakpoint
ALTER TABLE "contracts" ADD CONSTRAINT "contracts_negotiation_id_negotiations_id_fk" FOREIGN KEY ("negotiation_id") REFERENCES "public"."negotiations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contracts" ADD CONSTRAINT "contracts_gig_id_gigs_id_fk" FOREIGN KEY ("gig_id") REFERENCES "public"."gigs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contracts" ADD CONSTRAINT "contracts_client_user_id_users_id_fk" FOREIGN KEY ("client_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contracts" ADD CONSTRAINT "contracts_worker_user_id_users_id_fk" FOREIGN KEY ("worker_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contracts" ADD CONSTRAINT "contracts_round_id_negotiation_rounds_id_fk" FOREIGN KEY ("round_id") REFERENCES "public"."negotiation_rounds"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "milestones" ADD CONSTRAINT "milestones_contract_id_contracts_id_fk" FOREIGN KEY ("contract_id") REFERENCES "public"."contracts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "negotiation_rounds" ADD CONSTRAINT "negotiation_rounds_negotiation_id_negotiations_id_fk" FOREIGN KEY ("negotiation_id") REFERENCES "public"."negotiations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "negotiation_rounds" ADD CONSTRAINT "negotiation_rounds_proposer_user_id_users_id_fk" FOREIGN KEY ("proposer_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_accounts" ADD CONSTRAINT "payment_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "contracts_negotiation_key" ON "contracts" USING btree ("negotiation_id");--> statement-breakpoint
CREATE INDEX "contracts_client_idx" ON "contracts" USING btree ("client_user_id","id");--> statement-breakpoint
CREATE INDEX "contracts_worker_idx" ON "contracts" USING btree ("worker_user_id","id");--> statement-breakpoint
CREATE INDEX "contracts_approval_deadline_idx" ON "contracts" USING btree ("approval_deadline") WHERE status = 'pending_owner_approval';--> statement-breakpoint
CREATE UNIQUE INDEX "milestones_position_key" ON "milestones" USING btree ("contract_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "milestones_payment_id_key" ON "milestones" USING btree ("payment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "negotiation_rounds_number_key" ON "negotiation_rounds" USING btree ("negotiation_id","number");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_accounts_account_id_key" ON "payment_accounts" USING btree ("provider","account_id");--> statement-breakpoint
CREATE INDEX "negotiations_client_idx" ON "negotiations" USING btree ("client_user_id","id");--> statement-breakpoint
CREATE INDEX "negotiations_worker_idx" ON "negotiations" USING btree ("worker_user_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "negotiations_open_key" ON "negotiations" USING btree ("gig_id","worker_user_id") WHERE status = 'open';--> statement-breakpoint
ALTER TABLE "negotiations" ADD CONSTRAINT "negotiations_status_check" CHECK ("negotiations"."status" in ('open', 'agreed', 'cancelled'));