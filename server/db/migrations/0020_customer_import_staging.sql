CREATE TABLE "customer_import_staging" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "import_id" uuid;--> statement-breakpoint
ALTER TABLE "customer_import_staging" ADD CONSTRAINT "customer_import_staging_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "customers_import_idx" ON "customers" USING btree ("import_id") WHERE "customers"."import_id" is not null;