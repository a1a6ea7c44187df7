CREATE TABLE "position_operations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"platform_id" uuid NOT NULL,
	"login" text NOT NULL,
	"position_id" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"request_hash" text NOT NULL,
	"kind" text NOT NULL,
	"request" jsonb NOT NULL,
	"before" jsonb NOT NULL,
	"status" text NOT NULL,
	"lease_token" uuid DEFAULT gen_random_uuid() NOT NULL,
	"lease_until" timestamp with time zone NOT NULL,
	"result" jsonb,
	"actor_sub" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "position_operations" ADD CONSTRAINT "position_operations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "position_operations_org_key_idx" ON "position_operations" USING btree ("organization_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "position_operations_account_idx" ON "position_operations" USING btree ("platform_id","login","created_at");