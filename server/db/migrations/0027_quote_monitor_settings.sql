CREATE TABLE "quote_monitor_settings" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"symbol_map" jsonb,
	"holidays" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "quote_monitor_settings" ADD CONSTRAINT "quote_monitor_settings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;