CREATE TABLE "copy_divergence_notices" (
	"link_id" uuid NOT NULL,
	"follower_platform_id" uuid NOT NULL,
	"follower_login" text NOT NULL,
	"copy_request_id" text NOT NULL,
	"source_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "copy_divergence_notices_pk" PRIMARY KEY("link_id","follower_platform_id","follower_login","copy_request_id")
);
--> statement-breakpoint
ALTER TABLE "copy_followers" ADD COLUMN "suspended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "copy_followers" ADD COLUMN "suspended_stop" text;--> statement-breakpoint
ALTER TABLE "copy_followers" ADD COLUMN "suspended_action" text;--> statement-breakpoint
ALTER TABLE "copy_followers" ADD COLUMN "suspended_reason" text;--> statement-breakpoint
ALTER TABLE "copy_followers" ADD COLUMN "suspended_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "copy_divergence_notices" ADD CONSTRAINT "copy_divergence_notices_link_id_copy_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."copy_links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "copy_ledger_decided_idx" ON "copy_ledger" USING btree ("organization_id","decided_at");