CREATE TABLE "api_clients" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"secret_hash" text NOT NULL,
	"permissions" jsonb NOT NULL,
	"created_by_sub" text NOT NULL,
	"created_by_name" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "api_clients" ADD CONSTRAINT "api_clients_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_clients_organization_idx" ON "api_clients" USING btree ("organization_id","created_at");--> statement-breakpoint
-- An API client created, revoked or given other permissions is announced like a membership change
-- (`org:<organization id>`, migration 0002), so every node's cache of clients follows at once.
-- `last_used_at` alone is not a change of access and stays quiet.
CREATE TRIGGER "api_clients_access_change" AFTER INSERT OR DELETE OR UPDATE OF "organization_id", "permissions", "secret_hash" ON "api_clients" FOR EACH ROW EXECUTE FUNCTION "toolbox_notify_member_change"();
--> statement-breakpoint
CREATE TRIGGER "api_clients_access_truncate" AFTER TRUNCATE ON "api_clients" FOR EACH STATEMENT EXECUTE FUNCTION "toolbox_notify_access_truncated"();
