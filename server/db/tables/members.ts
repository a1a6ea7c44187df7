import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns.ts";
import { organizations } from "./organizations.ts";

/**
 * Invitations to join an organization (docs/administration.md; decision 0038). The link's token
 * is 32 random bytes; only its SHA-256 is kept. Single use (`accepted_at`), valid until
 * `expires_at` (7 days from the last sending), revocable. `access` is the role it grants
 * (core/roles.ts MemberAccess), turned into claims when it is accepted.
 */
export const invitations = pgTable(
  "invitations",
  {
    id: uuid("id")
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** Lower-cased, trimmed. */
    email: text("email").notNull(),
    /** SHA-256 of the link's token, hex. */
    tokenHash: text("token_hash").notNull(),
    access: jsonb("access").notNull(),
    invitedBy: text("invited_by").notNull(),
    createdAt: createdAt(),
    sentAt: timestamp("sent_at", { withTimezone: true }).notNull().defaultNow(),
    sendCount: integer("send_count").notNull().default(1),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    acceptedAt: timestamp("accepted_at", { withTimezone: true }),
    acceptedBy: text("accepted_by"),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("invitations_token_hash_idx").on(t.tokenHash),
    index("invitations_organization_idx").on(t.organizationId, t.createdAt),
    // One open invitation per organization and email.
    uniqueIndex("invitations_open_email_idx")
      .on(t.organizationId, t.email)
      .where(sql`${t.acceptedAt} is null and ${t.revokedAt} is null`),
  ],
);

/**
 * Messages Toolbox would have e-mailed when no SMTP_URL is set, for the organization's member
 * managers to read. An invitation's link is left out (it is a live grant of access: the inviter
 * sees it once, docs/security.md); the body is still encrypted at rest (server/secrets), bound to
 * the row's id, and rows kept before that are shown with their link removed.
 */
export const mailOutbox = pgTable(
  "mail_outbox",
  {
    id: uuid("id")
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    recipient: text("recipient").notNull(),
    subject: text("subject").notNull(),
    /** The text body, encrypted (server/secrets). */
    body: text("body").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("mail_outbox_organization_idx").on(t.organizationId, t.createdAt)],
);
