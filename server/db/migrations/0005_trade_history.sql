CREATE SEQUENCE "public"."trade_deals_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "trade_deals" (
	"organization_id" uuid NOT NULL,
	"platform_id" uuid NOT NULL,
	"deal_id" text NOT NULL,
	"seq" bigint DEFAULT nextval('trade_deals_seq') NOT NULL,
	"login" text NOT NULL,
	"time" timestamp (3) with time zone NOT NULL,
	"action" text NOT NULL,
	"entry" text,
	"position_id" text,
	"symbol" text,
	"volume" numeric(20, 4) NOT NULL,
	"price" double precision NOT NULL,
	"sl" double precision,
	"tp" double precision,
	"profit" numeric(20, 2) NOT NULL,
	"commission" numeric(20, 2) NOT NULL,
	"swap" numeric(20, 2) NOT NULL,
	"reason" text NOT NULL,
	"comment" text NOT NULL,
	"native" jsonb NOT NULL,
	CONSTRAINT "trade_deals_platform_id_deal_id_pk" PRIMARY KEY("platform_id","deal_id")
);
--> statement-breakpoint
CREATE TABLE "trade_history_sync" (
	"platform_id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"status" text DEFAULT 'idle' NOT NULL,
	"window_from" timestamp (3) with time zone,
	"window_to" timestamp (3) with time zone,
	"accounts_done" integer DEFAULT 0 NOT NULL,
	"accounts_total" integer DEFAULT 0 NOT NULL,
	"deals" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"last_sequence" bigint DEFAULT 0 NOT NULL,
	"started_at" timestamp (3) with time zone,
	"finished_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "trade_positions" (
	"organization_id" uuid NOT NULL,
	"platform_id" uuid NOT NULL,
	"position_id" text NOT NULL,
	"login" text NOT NULL,
	"symbol" text NOT NULL,
	"side" text NOT NULL,
	"volume" numeric(20, 4) NOT NULL,
	"open_time" timestamp (3) with time zone NOT NULL,
	"open_price" double precision NOT NULL,
	"current_price" double precision NOT NULL,
	"sl" double precision,
	"tp" double precision,
	"profit" numeric(20, 2) NOT NULL,
	"swap" numeric(20, 2) NOT NULL,
	"reason" text NOT NULL,
	"comment" text NOT NULL,
	"native" jsonb NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trade_positions_platform_id_position_id_pk" PRIMARY KEY("platform_id","position_id")
);
--> statement-breakpoint
ALTER TABLE "trade_deals" ADD CONSTRAINT "trade_deals_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trade_deals" ADD CONSTRAINT "trade_deals_platform_id_trade_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."trade_platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trade_history_sync" ADD CONSTRAINT "trade_history_sync_platform_id_trade_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."trade_platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trade_history_sync" ADD CONSTRAINT "trade_history_sync_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trade_positions" ADD CONSTRAINT "trade_positions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trade_positions" ADD CONSTRAINT "trade_positions_platform_id_trade_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."trade_platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "trade_deals_org_time_idx" ON "trade_deals" USING btree ("organization_id","time" DESC NULLS LAST,"seq" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "trade_deals_org_login_time_idx" ON "trade_deals" USING btree ("organization_id","login" text_pattern_ops,"time" DESC NULLS LAST,"seq" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "trade_positions_org_open_time_idx" ON "trade_positions" USING btree ("organization_id","open_time" DESC NULLS LAST,"platform_id" DESC NULLS LAST,"position_id" DESC NULLS LAST);