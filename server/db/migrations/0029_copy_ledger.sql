CREATE TABLE "copy_ledger" (
	"request_id" text PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"link_id" uuid NOT NULL,
	"follower_platform_id" uuid NOT NULL,
	"follower_login" text NOT NULL,
	"source_id" text NOT NULL,
	"source_action" text NOT NULL,
	"follower_action" text,
	"state" text NOT NULL,
	"reason" text,
	"symbol" text,
	"volume" text,
	"follower_position_id" text,
	"action" jsonb,
	"attempts" integer DEFAULT 0 NOT NULL,
	"lease_holder" text,
	"lease_until" timestamp with time zone,
	"source_time" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone NOT NULL,
	"sent_at" timestamp with time zone,
	"acked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "copy_ledger" ADD CONSTRAINT "copy_ledger_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "copy_ledger" ADD CONSTRAINT "copy_ledger_link_id_copy_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."copy_links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "copy_ledger" ADD CONSTRAINT "copy_ledger_follower_platform_id_trade_platforms_id_fk" FOREIGN KEY ("follower_platform_id") REFERENCES "public"."trade_platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "copy_ledger_link_idx" ON "copy_ledger" USING btree ("organization_id","link_id","created_at");--> statement-breakpoint
CREATE INDEX "copy_ledger_follower_idx" ON "copy_ledger" USING btree ("follower_platform_id","follower_login","source_id");--> statement-breakpoint
CREATE INDEX "copy_ledger_open_idx" ON "copy_ledger" USING btree ("state") WHERE state = 'pending';