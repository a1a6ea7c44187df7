CREATE TABLE "copy_link_leases" (
	"link_id" uuid PRIMARY KEY NOT NULL,
	"node_id" text NOT NULL,
	"epoch" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"acquired_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "copy_link_leases" ADD CONSTRAINT "copy_link_leases_link_id_copy_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."copy_links"("id") ON DELETE cascade ON UPDATE no action;