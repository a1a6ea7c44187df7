CREATE TABLE "dealing_server_writes" (
	"platform_id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"profile" text NOT NULL,
	"profile_hash" text NOT NULL,
	"status" text NOT NULL,
	"claimed_at" bigint NOT NULL,
	"result" jsonb,
	"originals" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "dealing_server_writes" ADD CONSTRAINT "dealing_server_writes_platform_id_trade_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."trade_platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dealing_server_writes" ADD CONSTRAINT "dealing_server_writes_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;