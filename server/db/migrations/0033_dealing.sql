CREATE TABLE "dealing_settings" (
	"platform_id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"settings" jsonb NOT NULL,
	"override" jsonb,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dealing_switches" (
	"platform_id" uuid NOT NULL,
	"at" bigint NOT NULL,
	"profile" text NOT NULL,
	"reason" text NOT NULL,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dealing_switches_platform_id_at_pk" PRIMARY KEY("platform_id","at")
);
--> statement-breakpoint
ALTER TABLE "dealing_settings" ADD CONSTRAINT "dealing_settings_platform_id_trade_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."trade_platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dealing_settings" ADD CONSTRAINT "dealing_settings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dealing_switches" ADD CONSTRAINT "dealing_switches_platform_id_trade_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."trade_platforms"("id") ON DELETE cascade ON UPDATE no action;