CREATE TABLE "simulated_server_commands" (
	"platform_id" uuid NOT NULL,
	"seq" bigint NOT NULL,
	"op" text NOT NULL,
	"args" jsonb NOT NULL,
	"at" bigint NOT NULL,
	CONSTRAINT "simulated_server_commands_platform_id_seq_pk" PRIMARY KEY("platform_id","seq")
);
--> statement-breakpoint
CREATE TABLE "simulated_servers" (
	"platform_id" uuid PRIMARY KEY NOT NULL,
	"identity" text NOT NULL,
	"node_id" text NOT NULL,
	"epoch" bigint NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"snapshot" "bytea",
	"snapshot_seq" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "simulated_server_commands" ADD CONSTRAINT "simulated_server_commands_platform_id_trade_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."trade_platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "simulated_servers" ADD CONSTRAINT "simulated_servers_platform_id_trade_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."trade_platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "simulated_servers_node_idx" ON "simulated_servers" USING btree ("node_id");