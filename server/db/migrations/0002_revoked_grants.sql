CREATE TABLE "revoked_grants" (
	"grant_id" text PRIMARY KEY NOT NULL,
	"revoked_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "revoked_grants_revoked_at_idx" ON "revoked_grants" USING btree ("revoked_at");--> statement-breakpoint
CREATE INDEX "revoked_grants_expires_at_idx" ON "revoked_grants" USING btree ("expires_at");--> statement-breakpoint
-- Every node keeps caches of who may do what (server/http/auth/): a change of membership or claims,
-- and a revoked grant, is announced on the channel `toolbox_access` when it commits, whoever wrote
-- it. Payloads: `org:<organization id>`, `grant:<grant id>`, `all` (a TRUNCATE).
CREATE FUNCTION "toolbox_notify_member_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM pg_notify('toolbox_access', 'org:' || OLD.organization_id::text);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM pg_notify('toolbox_access', 'org:' || NEW.organization_id::text);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "toolbox_notify_grant_revoked"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('toolbox_access', 'grant:' || NEW.grant_id);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "toolbox_notify_access_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('toolbox_access', 'all');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "memberships_access_change" AFTER INSERT OR UPDATE OR DELETE ON "memberships" FOR EACH ROW EXECUTE FUNCTION "toolbox_notify_member_change"();
--> statement-breakpoint
CREATE TRIGGER "member_claims_access_change" AFTER INSERT OR UPDATE OR DELETE ON "member_claims" FOR EACH ROW EXECUTE FUNCTION "toolbox_notify_member_change"();
--> statement-breakpoint
CREATE TRIGGER "memberships_access_truncate" AFTER TRUNCATE ON "memberships" FOR EACH STATEMENT EXECUTE FUNCTION "toolbox_notify_access_truncated"();
--> statement-breakpoint
CREATE TRIGGER "member_claims_access_truncate" AFTER TRUNCATE ON "member_claims" FOR EACH STATEMENT EXECUTE FUNCTION "toolbox_notify_access_truncated"();
--> statement-breakpoint
CREATE TRIGGER "revoked_grants_access_change" AFTER INSERT OR UPDATE ON "revoked_grants" FOR EACH ROW EXECUTE FUNCTION "toolbox_notify_grant_revoked"();
