CREATE TABLE "organization_security" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"require_two_factor" boolean DEFAULT false NOT NULL,
	"session_lifetime_seconds" integer,
	"allowed_ip_ranges" text[] DEFAULT '{}' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text
);
--> statement-breakpoint
ALTER TABLE "organization_security" ADD CONSTRAINT "organization_security_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- A policy change is an access change (server/http/auth/changes.ts): every node's guard drops the
-- organization's cached members and policy, and rechecks its open streams.
CREATE TRIGGER "organization_security_access_change" AFTER INSERT OR UPDATE OR DELETE ON "organization_security" FOR EACH ROW EXECUTE FUNCTION "toolbox_notify_member_change"();
--> statement-breakpoint
CREATE TRIGGER "organization_security_access_truncate" AFTER TRUNCATE ON "organization_security" FOR EACH STATEMENT EXECUTE FUNCTION "toolbox_notify_access_truncated"();
