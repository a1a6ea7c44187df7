CREATE TABLE "app_secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idp_accounts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"password_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idp_records" (
	"model" text NOT NULL,
	"id" text NOT NULL,
	"payload" jsonb NOT NULL,
	"grant_id" text,
	"user_code" text,
	"uid" text,
	"expires_at" timestamp with time zone,
	"consumed_at" timestamp with time zone,
	CONSTRAINT "idp_records_model_id_pk" PRIMARY KEY("model","id")
);
--> statement-breakpoint
CREATE TABLE "member_claims" (
	"organization_id" uuid NOT NULL,
	"user_sub" text NOT NULL,
	"type" text NOT NULL,
	"value" text NOT NULL,
	CONSTRAINT "member_claims_organization_id_user_sub_type_pk" PRIMARY KEY("organization_id","user_sub","type")
);
--> statement-breakpoint
CREATE TABLE "memberships" (
	"organization_id" uuid NOT NULL,
	"user_sub" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memberships_organization_id_user_sub_pk" PRIMARY KEY("organization_id","user_sub")
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"sub" text PRIMARY KEY NOT NULL,
	"email" text,
	"name" text,
	"provisioned_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "audit_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"actor_sub" text NOT NULL,
	"actor_name" text,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text NOT NULL,
	"before" jsonb,
	"after" jsonb,
	"source_ip" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "trade_platform_apps" (
	"platform_id" uuid NOT NULL,
	"app" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trade_platform_apps_platform_id_app_pk" PRIMARY KEY("platform_id","app")
);
--> statement-breakpoint
CREATE TABLE "trade_platforms" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"type" text NOT NULL,
	"name" text NOT NULL,
	"enable" boolean DEFAULT true NOT NULL,
	"time_zone" text DEFAULT 'UTC' NOT NULL,
	"connection" jsonb DEFAULT '{"kind":"simulated","accounts":300,"tradeRate":3,"seed":1}'::jsonb NOT NULL,
	"secret_ciphertext" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "balance_operations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"platform_id" uuid NOT NULL,
	"login" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"request_hash" text NOT NULL,
	"type" text NOT NULL,
	"amount" numeric(20, 2) NOT NULL,
	"comment" text NOT NULL,
	"status" text NOT NULL,
	"attempt" integer DEFAULT 1 NOT NULL,
	"lease_until" timestamp with time zone NOT NULL,
	"result" jsonb,
	"actor_sub" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "member_preferences" (
	"organization_id" uuid NOT NULL,
	"user_sub" text NOT NULL,
	"key" text NOT NULL,
	"value" jsonb,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "member_preferences_organization_id_user_sub_key_pk" PRIMARY KEY("organization_id","user_sub","key")
);
--> statement-breakpoint
CREATE TABLE "trading_accounts" (
	"organization_id" uuid NOT NULL,
	"platform_id" uuid NOT NULL,
	"login" text NOT NULL,
	"group" text NOT NULL,
	"name" text NOT NULL,
	"email" text NOT NULL,
	"phone" text DEFAULT '' NOT NULL,
	"country" text DEFAULT '' NOT NULL,
	"city" text DEFAULT '' NOT NULL,
	"address" text DEFAULT '' NOT NULL,
	"comment" text DEFAULT '' NOT NULL,
	"leverage" integer NOT NULL,
	"currency" text NOT NULL,
	"balance" numeric(20, 2) NOT NULL,
	"credit" numeric(20, 2) NOT NULL,
	"equity" numeric(20, 2) NOT NULL,
	"margin" numeric(20, 2) NOT NULL,
	"free_margin" numeric(20, 2) NOT NULL,
	"margin_level" numeric(20, 2),
	"margin_state" text NOT NULL,
	"enabled" boolean NOT NULL,
	"read_only" boolean NOT NULL,
	"registration" timestamp with time zone NOT NULL,
	"last_access" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trading_accounts_platform_id_login_pk" PRIMARY KEY("platform_id","login")
);
--> statement-breakpoint
ALTER TABLE "member_claims" ADD CONSTRAINT "member_claims_organization_id_user_sub_memberships_organization_id_user_sub_fk" FOREIGN KEY ("organization_id","user_sub") REFERENCES "public"."memberships"("organization_id","user_sub") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_sub_users_sub_fk" FOREIGN KEY ("user_sub") REFERENCES "public"."users"("sub") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trade_platform_apps" ADD CONSTRAINT "trade_platform_apps_platform_id_trade_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."trade_platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trade_platforms" ADD CONSTRAINT "trade_platforms_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "balance_operations" ADD CONSTRAINT "balance_operations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_preferences" ADD CONSTRAINT "member_preferences_organization_id_user_sub_memberships_organization_id_user_sub_fk" FOREIGN KEY ("organization_id","user_sub") REFERENCES "public"."memberships"("organization_id","user_sub") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trading_accounts" ADD CONSTRAINT "trading_accounts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trading_accounts" ADD CONSTRAINT "trading_accounts_platform_id_trade_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."trade_platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "idp_accounts_email_idx" ON "idp_accounts" USING btree (lower("email"));--> statement-breakpoint
CREATE INDEX "idp_records_grant_idx" ON "idp_records" USING btree ("grant_id");--> statement-breakpoint
CREATE INDEX "idp_records_uid_idx" ON "idp_records" USING btree ("uid");--> statement-breakpoint
CREATE INDEX "member_claims_user_idx" ON "member_claims" USING btree ("user_sub");--> statement-breakpoint
CREATE INDEX "memberships_user_idx" ON "memberships" USING btree ("user_sub");--> statement-breakpoint
CREATE INDEX "audit_events_org_at_idx" ON "audit_events" USING btree ("organization_id","at");--> statement-breakpoint
CREATE INDEX "audit_events_target_idx" ON "audit_events" USING btree ("target_type","target_id");--> statement-breakpoint
CREATE INDEX "trade_platforms_org_idx" ON "trade_platforms" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "trade_platforms_org_name_idx" ON "trade_platforms" USING btree ("organization_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "balance_operations_org_key_idx" ON "balance_operations" USING btree ("organization_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "balance_operations_account_idx" ON "balance_operations" USING btree ("platform_id","login","created_at");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_login_idx" ON "trading_accounts" USING btree ("organization_id",length("login"),"login");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_group_idx" ON "trading_accounts" USING btree ("organization_id","group");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_name_idx" ON "trading_accounts" USING btree ("organization_id","name");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_balance_idx" ON "trading_accounts" USING btree ("organization_id","balance");--> statement-breakpoint
CREATE INDEX "trading_accounts_org_equity_idx" ON "trading_accounts" USING btree ("organization_id","equity");