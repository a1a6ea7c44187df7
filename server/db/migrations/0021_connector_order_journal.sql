CREATE TABLE "connector_order_journal" (
	"platform_id" uuid NOT NULL,
	"request_id" text NOT NULL,
	"position_id" text,
	"intent" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "connector_order_journal_platform_id_request_id_pk" PRIMARY KEY("platform_id","request_id")
);
--> statement-breakpoint
ALTER TABLE "connector_order_journal" ADD CONSTRAINT "connector_order_journal_platform_id_trade_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."trade_platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "connector_order_journal_position_idx" ON "connector_order_journal" USING btree ("platform_id","position_id");