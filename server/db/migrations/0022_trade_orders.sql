CREATE TABLE "trade_orders" (
	"organization_id" uuid NOT NULL,
	"platform_id" uuid NOT NULL,
	"order_id" text NOT NULL,
	"login" text NOT NULL,
	"symbol" text NOT NULL,
	"type" text NOT NULL,
	"volume" numeric(20, 4) NOT NULL,
	"price" double precision NOT NULL,
	"sl" double precision,
	"tp" double precision,
	"expiration" timestamp (3) with time zone,
	"placed_time" timestamp (3) with time zone NOT NULL,
	"state" text NOT NULL,
	"position_id" text,
	"done_time" timestamp (3) with time zone,
	"reason" text NOT NULL,
	"comment" text NOT NULL,
	"native" jsonb NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trade_orders_platform_id_order_id_pk" PRIMARY KEY("platform_id","order_id")
);
--> statement-breakpoint
ALTER TABLE "trade_orders" ADD CONSTRAINT "trade_orders_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trade_orders" ADD CONSTRAINT "trade_orders_platform_id_trade_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."trade_platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "trade_orders_org_placed_idx" ON "trade_orders" USING btree ("organization_id","placed_time" DESC NULLS LAST,"platform_id" DESC NULLS LAST,"order_id" DESC NULLS LAST);