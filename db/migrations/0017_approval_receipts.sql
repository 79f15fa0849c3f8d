CREATE TABLE "contract_approvals" (
	"id" uuid PRIMARY KEY NOT NULL,
	"contract_id" uuid NOT NULL,
	"revision_count" integer NOT NULL,
	"terms_hash" text NOT NULL,
	"party_role" text NOT NULL,
	"user_id" uuid NOT NULL,
	"method" text NOT NULL,
	"api_key_id" uuid,
	"hosted_agent_id" text,
	"receipt" text NOT NULL,
	"approved_at" timestamp with time zone NOT NULL,
	CONSTRAINT "contract_approvals_role_check" CHECK ("contract_approvals"."party_role" in ('client', 'worker')),
	CONSTRAINT "contract_approvals_method_check" CHECK ("contract_approvals"."method" in ('api_key', 'session', 'passkey'))
);
--> statement-breakpoint
CREATE TABLE "receipt_signing_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"private_key_pem" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"retired_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "contracts" ADD COLUMN "client_approval_method" text;--> statement-breakpoint
ALTER TABLE "contracts" ADD COLUMN "worker_approval_method" text;--> statement-breakpoint
ALTER TABLE "contract_approvals" ADD CONSTRAINT "contract_approvals_contract_id_contracts_id_fk" FOREIGN KEY ("contract_id") REFERENCES "public"."contracts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contract_approvals" ADD CONSTRAINT "contract_approvals_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "contract_approvals_party_key" ON "contract_approvals" USING btree ("contract_id","revision_count","party_role");--> statement-breakpoint
CREATE UNIQUE INDEX "receipt_signing_keys_active_key" ON "receipt_signing_keys" USING btree (("retired_at" is null)) WHERE "receipt_signing_keys"."retired_at" is null;--> statement-breakpoint
ALTER TABLE "contracts" ADD CONSTRAINT "contracts_client_approval_method_check" CHECK ("contracts"."client_approval_method" in ('api_key', 'session', 'passkey'));--> statement-breakpoint
ALTER TABLE "contracts" ADD CONSTRAINT "contracts_worker_approval_method_check" CHECK ("contracts"."worker_approval_method" in ('api_key', 'session', 'passkey'));