ALTER TABLE "notification_deliveries" ADD COLUMN "dedupe_key" text;--> statement-breakpoint
ALTER TABLE "notification_deliveries" ADD COLUMN "message" jsonb;--> statement-breakpoint
ALTER TABLE "notification_deliveries" ADD COLUMN "next_attempt_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "notification_deliveries" ADD COLUMN "lease_owner" text;--> statement-breakpoint
ALTER TABLE "notification_deliveries" ADD COLUMN "lease_expires_at" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "notification_deliveries_dedupe_idx" ON "notification_deliveries" USING btree ("channel_id","dedupe_key");--> statement-breakpoint
CREATE INDEX "notification_deliveries_due_idx" ON "notification_deliveries" USING btree ("next_attempt_at") WHERE "notification_deliveries"."status" = 'pending';--> statement-breakpoint
-- Deliveries left pending by a version that kept retries in memory cannot be retried (what to send was not stored).
UPDATE "notification_deliveries" SET "status" = 'failed', "last_error" = 'Interrupted by a restart before deliveries were kept across restarts', "updated_at" = now() WHERE "status" = 'pending';
