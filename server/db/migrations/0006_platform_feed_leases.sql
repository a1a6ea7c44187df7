CREATE TABLE "platform_feed_leases" (
	"platform_id" uuid PRIMARY KEY NOT NULL,
	"node_id" text NOT NULL,
	"epoch" bigint NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"acquired_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "platform_feed_leases" ADD CONSTRAINT "platform_feed_leases_platform_id_trade_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."trade_platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "platform_feed_leases_node_idx" ON "platform_feed_leases" USING btree ("node_id");