ALTER TABLE "balance_operations" ADD COLUMN "lease_token" uuid DEFAULT gen_random_uuid() NOT NULL;--> statement-breakpoint
ALTER TABLE "balance_operations" ADD COLUMN "reason" text;--> statement-breakpoint
ALTER TABLE "balance_operations" DROP COLUMN "attempt";