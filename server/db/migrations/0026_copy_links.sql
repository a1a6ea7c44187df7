CREATE TABLE "copy_followers" (
	"link_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"platform_id" uuid NOT NULL,
	"login" text NOT NULL,
	"position" integer NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"settings" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "copy_followers_pk" PRIMARY KEY("link_id","platform_id","login")
);
--> statement-breakpoint
CREATE TABLE "copy_links" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"source_platform_id" uuid NOT NULL,
	"source_login" text NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "copy_followers" ADD CONSTRAINT "copy_followers_link_id_copy_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."copy_links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "copy_followers" ADD CONSTRAINT "copy_followers_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "copy_followers" ADD CONSTRAINT "copy_followers_platform_id_trade_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."trade_platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "copy_links" ADD CONSTRAINT "copy_links_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "copy_links" ADD CONSTRAINT "copy_links_source_platform_id_trade_platforms_id_fk" FOREIGN KEY ("source_platform_id") REFERENCES "public"."trade_platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "copy_followers_account_idx" ON "copy_followers" USING btree ("platform_id","login");--> statement-breakpoint
CREATE INDEX "copy_followers_org_idx" ON "copy_followers" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "copy_links_org_idx" ON "copy_links" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "copy_links_source_idx" ON "copy_links" USING btree ("source_platform_id","source_login");