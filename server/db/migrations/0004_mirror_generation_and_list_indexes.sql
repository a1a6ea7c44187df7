CREATE SEQUENCE "public"."trading_accounts_generation" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
ALTER TABLE "trading_accounts" ADD COLUMN "generation" bigint DEFAULT nextval('trading_accounts_generation') NOT NULL;--> statement-breakpoint
-- Every update of a mirror row takes a new generation, whoever writes it (the mirror's upserts,
-- a balance operation's update), so a page read from the platform before it never overwrites it.
CREATE FUNCTION "trading_accounts_next_generation"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.generation := nextval('trading_accounts_generation');
  RETURN NEW;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "trading_accounts_generation" BEFORE UPDATE ON "trading_accounts"
  FOR EACH ROW EXECUTE FUNCTION "trading_accounts_next_generation"();--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
DROP INDEX "trading_accounts_org_login_idx";--> statement-breakpoint
DROP INDEX "trading_accounts_org_group_idx";--> statement-breakpoint
DROP INDEX "trading_accounts_org_name_idx";--> statement-breakpoint
DROP INDEX "trading_accounts_org_balance_idx";--> statement-breakpoint
DROP INDEX "trading_accounts_org_equity_idx";--> statement-breakpoint
CREATE INDEX "trading_accounts_org_platform_idx" ON "trading_accounts" USING btree ("organization_id","platform_id",length("login"),"login");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_email_idx" ON "trading_accounts" USING btree ("organization_id","email","platform_id",length("login"),"login");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_leverage_idx" ON "trading_accounts" USING btree ("organization_id","leverage","platform_id",length("login"),"login");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_currency_idx" ON "trading_accounts" USING btree ("organization_id","currency","platform_id",length("login"),"login");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_credit_idx" ON "trading_accounts" USING btree ("organization_id","credit","platform_id",length("login"),"login");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_margin_idx" ON "trading_accounts" USING btree ("organization_id","margin","platform_id",length("login"),"login");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_free_margin_idx" ON "trading_accounts" USING btree ("organization_id","free_margin","platform_id",length("login"),"login");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_margin_level_idx" ON "trading_accounts" USING btree ("organization_id","margin_level","platform_id",length("login"),"login");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_margin_level_desc_idx" ON "trading_accounts" USING btree ("organization_id","margin_level" DESC NULLS LAST,"platform_id" DESC NULLS LAST,length("login") desc nulls last,"login" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "trading_accounts_org_margin_state_idx" ON "trading_accounts" USING btree ("organization_id","margin_state","platform_id",length("login"),"login");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_enabled_idx" ON "trading_accounts" USING btree ("organization_id","enabled","platform_id",length("login"),"login");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_read_only_idx" ON "trading_accounts" USING btree ("organization_id","read_only","platform_id",length("login"),"login");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_registration_idx" ON "trading_accounts" USING btree ("organization_id","registration","platform_id",length("login"),"login");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_last_access_idx" ON "trading_accounts" USING btree ("organization_id","last_access","platform_id",length("login"),"login");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_last_access_desc_idx" ON "trading_accounts" USING btree ("organization_id","last_access" DESC NULLS LAST,"platform_id" DESC NULLS LAST,length("login") desc nulls last,"login" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "trading_accounts_name_trgm_idx" ON "trading_accounts" USING gin ("name" gin_trgm_ops) WITH (gin_pending_list_limit=256);--> statement-breakpoint
CREATE INDEX "trading_accounts_email_trgm_idx" ON "trading_accounts" USING gin ("email" gin_trgm_ops) WITH (gin_pending_list_limit=256);--> statement-breakpoint
CREATE INDEX "trading_accounts_org_login_idx" ON "trading_accounts" USING btree ("organization_id",length("login"),"login","platform_id");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_group_idx" ON "trading_accounts" USING btree ("organization_id","group","platform_id",length("login"),"login");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_name_idx" ON "trading_accounts" USING btree ("organization_id","name","platform_id",length("login"),"login");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_balance_idx" ON "trading_accounts" USING btree ("organization_id","balance","platform_id",length("login"),"login");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_equity_idx" ON "trading_accounts" USING btree ("organization_id","equity","platform_id",length("login"),"login");
