CREATE TABLE "reviews" (
	"id" uuid PRIMARY KEY NOT NULL,
	"contract_id" uuid NOT NULL,
	"author_user_id" uuid NOT NULL,
	"author_role" text NOT NULL,
	"reviewee_user_id" uuid NOT NULL,
	"rating" integer NOT NULL,
	"text" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"published_at" timestamp with time zone,
	CONSTRAINT "reviews_author_role_check" CHECK ("reviews"."author_role" in ('client', 'worker')),
	CONSTRAINT "reviews_rating_check" CHECK ("reviews"."rating" between 1 and 5),
	CONSTRAINT "reviews_text_check" CHECK (char_length("reviews"."text") between 1 and 2000),
	CONSTRAINT "reviews_not_self" CHECK ("reviews"."author_user_id" <> "reviews"."reviewee_user_id")
);
--> statement-breakpoint
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_contract_id_contracts_id_fk" FOREIGN KEY ("contract_id") REFERENCES "public"."contracts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_author_user_id_users_id_fk" FOREIGN KEY ("author_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_reviewee_user_id_users_id_fk" FOREIGN KEY ("reviewee_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "reviews_contract_author_key" ON "reviews" USING btree ("contract_id","author_user_id");--> statement-breakpoint
CREATE INDEX "reviews_published_reviewee_idx" ON "reviews" USING btree ("reviewee_user_id","id") WHERE published_at is not null;--> statement-breakpoint
CREATE INDEX "reviews_blind_idx" ON "reviews" USING btree ("contract_id") WHERE published_at is null;