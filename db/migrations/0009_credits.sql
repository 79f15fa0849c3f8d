CREATE TABLE "credit_accounts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid,
	"subscription_tier" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_accounts_tier_check" CHECK ("credit_accounts"."subscription_tier" in ('free', 'pro', 'team')),
	CONSTRAINT "credit_accounts_kind_check" CHECK (("credit_accounts"."user_id" is null) = ("credit_accounts"."subscription_tier" is null)),
	CONSTRAINT "credit_accounts_platform_check" CHECK (("credit_accounts"."user_id" is null) = ("credit_accounts"."id" = '00000000-0000-7000-8000-000000000000'))
);
--> statement-breakpoint
CREATE TABLE "credit_entries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"transaction_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"amount" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_entries_amount_check" CHECK ("credit_entries"."amount" <> 0)
);
--> statement-breakpoint
CREATE TABLE "credit_transactions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"reason" text NOT NULL,
	"reference_id" text,
	"note" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_transactions_reason_check" CHECK ("credit_transactions"."reason" in ('monthly_grant', 'operator_grant', 'match_deduction', 'intro_deduction')),
	CONSTRAINT "credit_transactions_reference_check" CHECK (char_length("credit_transactions"."reference_id") between 1 and 128),
	CONSTRAINT "credit_transactions_note_check" CHECK (char_length("credit_transactions"."note") between 1 and 200)
);
--> statement-breakpoint
ALTER TABLE "credit_accounts" ADD CONSTRAINT "credit_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_entries" ADD CONSTRAINT "credit_entries_transaction_id_credit_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."credit_transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_entries" ADD CONSTRAINT "credit_entries_account_id_credit_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."credit_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_transactions" ADD CONSTRAINT "credit_transactions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "credit_accounts_user_key" ON "credit_accounts" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "credit_entries_transaction_account_key" ON "credit_entries" USING btree ("transaction_id","account_id");--> statement-breakpoint
CREATE INDEX "credit_entries_account_idx" ON "credit_entries" USING btree ("account_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "credit_transactions_reference_key" ON "credit_transactions" USING btree ("user_id","reason","reference_id") WHERE reference_id is not null;--> statement-breakpoint
-- The platform's account: grants come from it and deductions go to it, so its balance is minus the
-- users' total and every entry of the ledger sums to zero.
INSERT INTO "credit_accounts" ("id", "user_id", "subscription_tier") VALUES ('00000000-0000-7000-8000-000000000000', NULL, NULL);
--> statement-breakpoint
-- The ledger is append-only: a correction is a new transaction, never an edit.
CREATE FUNCTION gm_credit_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the credits ledger is append-only: % on % refused', TG_OP, TG_TABLE_NAME;
END $$;
--> statement-breakpoint
CREATE TRIGGER "credit_transactions_append_only" BEFORE UPDATE OR DELETE ON "credit_transactions"
  FOR EACH ROW EXECUTE FUNCTION gm_credit_ledger_append_only();
--> statement-breakpoint
CREATE TRIGGER "credit_transactions_no_truncate" BEFORE TRUNCATE ON "credit_transactions"
  FOR EACH STATEMENT EXECUTE FUNCTION gm_credit_ledger_append_only();
--> statement-breakpoint
CREATE TRIGGER "credit_entries_append_only" BEFORE UPDATE OR DELETE ON "credit_entries"
  FOR EACH ROW EXECUTE FUNCTION gm_credit_ledger_append_only();
--> statement-breakpoint
CREATE TRIGGER "credit_entries_no_truncate" BEFORE TRUNCATE ON "credit_entries"
  FOR EACH STATEMENT EXECUTE FUNCTION gm_credit_ledger_append_only();
--> statement-breakpoint
-- Double entry, checked at commit: each transaction has exactly two entries, one on its user's
-- account and one on the platform's, summing to zero.
CREATE FUNCTION gm_check_credit_transaction(tid uuid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  legs int;
  total bigint;
  user_legs int;
  platform_legs int;
BEGIN
  SELECT count(e.id), coalesce(sum(e.amount), 0),
         count(e.id) FILTER (WHERE a.user_id = t.user_id), count(e.id) FILTER (WHERE a.user_id IS NULL)
    INTO legs, total, user_legs, platform_legs
    FROM credit_transactions t
    LEFT JOIN credit_entries e ON e.transaction_id = t.id
    LEFT JOIN credit_accounts a ON a.id = e.account_id
   WHERE t.id = tid;
  IF legs <> 2 OR total <> 0 OR user_legs <> 1 OR platform_legs <> 1 THEN
    RAISE EXCEPTION 'credit transaction % is not balanced: % entries (% on its user''s account, % on the platform''s) summing to %',
      tid, legs, user_legs, platform_legs, total;
  END IF;
END $$;
--> statement-breakpoint
CREATE FUNCTION gm_credit_transaction_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM gm_check_credit_transaction(NEW.id);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION gm_credit_entry_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM gm_check_credit_transaction(NEW.transaction_id);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "credit_transactions_balanced" AFTER INSERT ON "credit_transactions"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION gm_credit_transaction_balanced();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "credit_entries_balanced" AFTER INSERT ON "credit_entries"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION gm_credit_entry_balanced();
