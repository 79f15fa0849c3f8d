CREATE TABLE "contract_approval_requests" (
	"contract_id" uuid NOT NULL,
	"revision_count" integer NOT NULL,
	"party_role" text NOT NULL,
	"terms_hash" text NOT NULL,
	"api_key_id" uuid,
	"hosted_agent_id" text,
	"requested_at" timestamp with time zone NOT NULL,
	CONSTRAINT "contract_approval_requests_contract_id_revision_count_party_role_pk" PRIMARY KEY("contract_id","revision_count","party_role"),
	CONSTRAINT "contract_approval_requests_role_check" CHECK ("contract_approval_requests"."party_role" in ('client', 'worker'))
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "approval_policy" text DEFAULT 'keys_may_approve' NOT NULL;--> statement-breakpoint
ALTER TABLE "contract_approval_requests" ADD CONSTRAINT "contract_approval_requests_contract_id_contracts_id_fk" FOREIGN KEY ("contract_id") REFERENCES "public"."contracts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_approval_policy_check" CHECK ("users"."approval_policy" in ('keys_may_approve', 'owner_confirms'));