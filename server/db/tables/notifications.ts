import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns.ts";
import { organizations } from "./organizations.ts";

/**
 * The inbox: one row per notification and member (`user_sub`) in an organization. Written by the
 * notifications service from events on the bus (server/modules/notifications/); read and marked
 * read by that member only. Kept for the organization's retention (notification_settings).
 */
export const notifications = pgTable(
  "notifications",
  {
    id: uuid("id")
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userSub: text("user_sub").notNull(),
    /** A notification type of core/notifications.ts, e.g. `platformDisconnected`. */
    type: text("type").notNull(),
    severity: text("severity").notNull(),
    title: text("title").notNull(),
    body: text("body").notNull(),
    /** The app path of what it is about (a platform's settings …), or null. */
    link: text("link"),
    /** Same event seen twice (two nodes, a replay): one row. */
    dedupeKey: text("dedupe_key").notNull(),
    createdAt: createdAt(),
    readAt: timestamp("read_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("notifications_dedupe_idx").on(t.organizationId, t.userSub, t.dedupeKey),
    index("notifications_member_idx").on(t.organizationId, t.userSub, t.createdAt),
    index("notifications_created_idx").on(t.createdAt),
  ],
);

/**
 * Per organization: how long the inbox keeps notifications, the large-balance-operation threshold,
 * and the rules (which notification types go to which channels and members), as JSON validated by
 * core/notifications.ts.
 */
export const notificationSettings = pgTable("notification_settings", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  retentionDays: integer("retention_days").notNull().default(90),
  /** Money as a two-decimal string (decision 0019); null: no large balance operation notices. */
  largeBalanceThreshold: text("large_balance_threshold"),
  rules: jsonb("rules")
    .notNull()
    .default(sql`'{}'::jsonb`),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/** An outgoing channel of an organization: e-mail, Telegram or webhook. The in-app inbox is not a row (always on). */
export const notificationChannels = pgTable(
  "notification_channels",
  {
    id: uuid("id")
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    name: text("name").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    /** What is not secret: the webhook URL, the Telegram chat id, the e-mail addresses. */
    settings: jsonb("settings").notNull(),
    /** The webhook secret or the Telegram bot token, encrypted (server/secrets), associated data = the channel id. */
    secretCiphertext: text("secret_ciphertext"),
    /** Deliveries that failed in a row (after their retries); reset by a success. */
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    /** Why it was switched off automatically, or null. */
    disabledReason: text("disabled_reason"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("notification_channels_org_idx").on(t.organizationId)],
);

/**
 * The delivery log and the queue of deliveries: one row per notification sent to a channel,
 * updated at each attempt. A pending row waits for its `next_attempt_at`; the node that takes it
 * holds a lease (`lease_owner` until `lease_expires_at`) while it tries, so exactly one node
 * delivers it, and a node that stops or dies mid-try leaves a lease that runs out and another node
 * (or the same after a restart) takes it again (server/modules/notifications/deliveryQueue.ts).
 */
export const notificationDeliveries = pgTable(
  "notification_deliveries",
  {
    id: uuid("id")
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    organizationId: uuid("organization_id").notNull(),
    channelId: uuid("channel_id")
      .notNull()
      .references(() => notificationChannels.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    /** `pending` (being tried), `delivered`, `failed` (gave up). */
    status: text("status").notNull(),
    attempts: integer("attempts").notNull().default(0),
    /** The receiver's last HTTP status, if it answered. */
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    /**
     * The notice's key (the event it comes from): one delivery per channel and event, however many
     * nodes saw the event. Null for a "Send test".
     */
    dedupeKey: text("dedupe_key"),
    /** What is sent (severity, title, body, link), kept so a retry after a restart sends the same. */
    message: jsonb("message"),
    /** When a pending delivery is tried next; null once delivered or failed (and for a test). */
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }),
    /** The node trying it now, and until when its claim holds. */
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("notification_deliveries_channel_idx").on(t.channelId, t.createdAt),
    uniqueIndex("notification_deliveries_dedupe_idx").on(t.channelId, t.dedupeKey),
    index("notification_deliveries_due_idx")
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = 'pending'`),
  ],
);

/**
 * The addresses of an e-mail channel and whether each confirmed it wants the organization's
 * notifications (docs/notifications.md, "E-mail recipients confirm"): a channel mails confirmed
 * addresses only. The confirmation link's token is kept as its SHA-256, cleared once confirmed.
 */
export const notificationEmailRecipients = pgTable(
  "notification_email_recipients",
  {
    channelId: uuid("channel_id")
      .notNull()
      .references(() => notificationChannels.id, { onDelete: "cascade" }),
    organizationId: uuid("organization_id").notNull(),
    /** Lower case, as the channel's settings hold it. */
    address: text("address").notNull(),
    tokenHash: text("token_hash"),
    /** When the confirmation mail was last sent (its link expires a week later). */
    requestedAt: timestamp("requested_at", { withTimezone: true }).notNull().defaultNow(),
    confirmedAt: timestamp("confirmed_at", { withTimezone: true }),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.address] }), uniqueIndex("notification_email_recipients_token_idx").on(t.tokenHash)],
);

/**
 * E-mails an organization's notifications sent (confirmations included), one row per message with
 * its number of recipients: what the per-organization hourly limit counts, on every node.
 */
export const notificationMailSends = pgTable(
  "notification_mail_sends",
  {
    id: uuid("id")
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    recipients: integer("recipients").notNull(),
    sentAt: timestamp("sent_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("notification_mail_sends_org_idx").on(t.organizationId, t.sentAt)],
);
