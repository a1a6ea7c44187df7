CREATE TABLE "quote_alert_rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"platform_ids" jsonb,
	"symbol_mask" text DEFAULT '*' NOT NULL,
	"severity" text NOT NULL,
	"cooldown_seconds" integer NOT NULL,
	"settings" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "quote_alert_rules" ADD CONSTRAINT "quote_alert_rules_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "quote_alert_rules_org_idx" ON "quote_alert_rules" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "quote_alert_rules_org_name_idx" ON "quote_alert_rules" USING btree ("organization_id","name");