CREATE TABLE "notification_email_recipients" (
	"channel_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"address" text NOT NULL,
	"token_hash" text,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"confirmed_at" timestamp with time zone,
	CONSTRAINT "notification_email_recipients_channel_id_address_pk" PRIMARY KEY("channel_id","address")
);
--> statement-breakpoint
CREATE TABLE "notification_mail_sends" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"recipients" integer NOT NULL,
	"sent_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "customer_imports" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"started_by" text NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "notification_email_recipients" ADD CONSTRAINT "notification_email_recipients_channel_id_notification_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."notification_channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_mail_sends" ADD CONSTRAINT "notification_mail_sends_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customer_imports" ADD CONSTRAINT "customer_imports_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "notification_email_recipients_token_idx" ON "notification_email_recipients" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "notification_mail_sends_org_idx" ON "notification_mail_sends" USING btree ("organization_id","sent_at");