CREATE TABLE "flexible_leverage_rules" (
	"platform_id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"parameters" jsonb NOT NULL,
	"rules_changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_node" text,
	"lease_epoch" bigint DEFAULT 0 NOT NULL,
	"lease_expires_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "leverage_changes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"platform_id" uuid NOT NULL,
	"login" text NOT NULL,
	"key" text NOT NULL,
	"from_leverage" integer NOT NULL,
	"to_leverage" integer NOT NULL,
	"rule_name" text,
	"tier_index" integer,
	"window_kind" text,
	"reason" text NOT NULL,
	"source" text NOT NULL,
	"status" text NOT NULL,
	"error" text,
	"changed_at" timestamp with time zone NOT NULL,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "leverage_changes_platform_key" UNIQUE("platform_id","key")
);
--> statement-breakpoint
ALTER TABLE "flexible_leverage_rules" ADD CONSTRAINT "flexible_leverage_rules_platform_id_trade_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."trade_platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "flexible_leverage_rules" ADD CONSTRAINT "flexible_leverage_rules_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leverage_changes" ADD CONSTRAINT "leverage_changes_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leverage_changes" ADD CONSTRAINT "leverage_changes_platform_id_trade_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."trade_platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "leverage_changes_account_idx" ON "leverage_changes" USING btree ("platform_id","login","changed_at");--> statement-breakpoint
CREATE INDEX "leverage_changes_org_idx" ON "leverage_changes" USING btree ("organization_id");