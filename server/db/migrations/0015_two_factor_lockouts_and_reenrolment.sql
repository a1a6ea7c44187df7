ALTER TABLE "idp_two_factor" ADD COLUMN "lockouts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "idp_two_factor" ADD COLUMN "enrolment_required_at" timestamp with time zone;