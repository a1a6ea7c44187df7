ALTER TABLE "organizations" ADD COLUMN "created_by" text;--> statement-breakpoint
CREATE INDEX "organizations_created_by_idx" ON "organizations" USING btree ("created_by");