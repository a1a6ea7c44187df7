/**
 * The inbox and notification settings (/api/inbox, /api/notifications), written once for the API,
 * the OpenAPI document and the app. docs/notifications.md.
 */
import { z } from "zod";
import { AMOUNT_PATTERN } from "./balanceOperations.ts";
import { CHANNEL_KINDS, NOTIFICATION_SEVERITIES, NOTIFICATION_TYPES } from "../notifications.ts";

export {
  CHANNEL_KINDS,
  DEFAULT_SEVERITY,
  NOTIFICATION_SEVERITIES,
  NOTIFICATION_TYPE_LABELS,
  NOTIFICATION_TYPES,
  type ChannelKind,
  type NotificationSeverity,
  type NotificationType,
} from "../notifications.ts";

const Uuid = z.uuid({ error: "must be an id (a UUID)" });

/** One rule: which channels carry a type and which members see it in their inbox. */
export const NotificationRuleSchema = z
  .object({
    /** In members' inboxes. */
    inbox: z.boolean().default(true),
    /** "all" enabled channels, or these channels' ids. */
    channels: z.union([z.literal("all"), z.array(Uuid).max(50)]).default("all"),
    /** Whose inbox: every member, the organization's administrators, or these members (their `sub`). */
    members: z.union([z.literal("all"), z.literal("admins"), z.array(z.string().min(1).max(255)).max(500)]).default("all"),
  })
  .strict();
export type NotificationRule = z.infer<typeof NotificationRuleSchema>;

export const DEFAULT_RULE: NotificationRule = { inbox: true, channels: "all", members: "all" };

export const NotificationRulesSchema = z.partialRecord(z.enum(NOTIFICATION_TYPES), NotificationRuleSchema);
export type NotificationRules = z.infer<typeof NotificationRulesSchema>;

export const NotificationSettingsSchema = z
  .object({
    retentionDays: z.number().int("retentionDays must be a whole number").min(1, "retentionDays must be at least 1").max(3650, "retentionDays is at most 3650"),
    largeBalanceThreshold: z.string().trim().regex(AMOUNT_PATTERN, 'largeBalanceThreshold must be an amount such as "10000" or "9999.50"').nullable(),
    rules: NotificationRulesSchema,
  })
  .strict();
export type NotificationSettings = z.infer<typeof NotificationSettingsSchema>;

export const NotificationSchema = z.object({
  id: z.string(),
  type: z.enum(NOTIFICATION_TYPES),
  severity: z.enum(NOTIFICATION_SEVERITIES),
  title: z.string(),
  body: z.string(),
  link: z.string().nullable(),
  createdAt: z.string(),
  readAt: z.string().nullable(),
});
export type Notification = z.infer<typeof NotificationSchema>;

export const InboxPageSchema = z.object({
  items: z.array(NotificationSchema),
  unread: z.number().int(),
  /** Pass as `before` for the next page; null at the end. */
  next: z.string().nullable(),
});
export type InboxPage = z.infer<typeof InboxPageSchema>;

export const InboxQuerySchema = z.object({
  status: z.enum(["all", "unread", "read"]).default("all"),
  severity: z.enum(NOTIFICATION_SEVERITIES).optional(),
  type: z.enum(NOTIFICATION_TYPES).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** A cursor from the previous page's `next`. */
  before: z.string().max(200).optional(),
});
export type InboxQuery = z.input<typeof InboxQuerySchema>;
export type InboxFilter = z.output<typeof InboxQuerySchema>;

const ChannelName = z.string().trim().min(1, "name is required").max(80, "name is at most 80 characters");
const HttpUrl = z
  .string()
  .trim()
  .max(2000, "url is at most 2000 characters")
  .refine((v) => /^https?:\/\//i.test(v) && URL.canParse(v), "url must be an http:// or https:// address");

export const EmailSettingsSchema = z
  .object({ to: z.array(z.email("each recipient must be an e-mail address")).min(1, "add at least one recipient").max(20) })
  .strict();
export const TelegramSettingsSchema = z
  .object({
    chatId: z
      .string()
      .trim()
      .regex(/^(-?\d{1,20}|@[A-Za-z0-9_]{5,32})$/, "chatId must be a numeric chat id or an @channel name"),
  })
  .strict();
export const WebhookSettingsSchema = z.object({ url: HttpUrl }).strict();

const Secret = (what: string) => z.string().trim().min(1, `${what} is required`).max(500, `${what} is at most 500 characters`);
const TelegramToken = z
  .string()
  .trim()
  .regex(/^\d{1,20}:[A-Za-z0-9_-]{20,100}$/, "botToken must be a Telegram bot token such as 123456:ABC-DEF…");

/** Creating a channel: its kind's settings and secret. */
export const CreateChannelSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("email"), name: ChannelName, enabled: z.boolean().default(true), settings: EmailSettingsSchema }).strict(),
  z
    .object({ kind: z.literal("telegram"), name: ChannelName, enabled: z.boolean().default(true), settings: TelegramSettingsSchema, botToken: TelegramToken })
    .strict(),
  z
    .object({
      kind: z.literal("webhook"),
      name: ChannelName,
      enabled: z.boolean().default(true),
      settings: WebhookSettingsSchema,
      secret: Secret("secret").refine((v) => v.length >= 16, "secret must be at least 16 characters"),
    })
    .strict(),
]);
export type CreateChannel = z.infer<typeof CreateChannelSchema>;

/** Editing: any of name, enabled, settings (of its kind), and a new secret (omitted: kept). */
export const UpdateChannelSchema = z
  .object({
    name: ChannelName.optional(),
    enabled: z.boolean().optional(),
    settings: z.record(z.string(), z.unknown()).optional(),
    secret: Secret("secret").optional(),
    botToken: TelegramToken.optional(),
  })
  .strict();
export type UpdateChannel = z.infer<typeof UpdateChannelSchema>;

export const ChannelSchema = z.object({
  id: z.string(),
  kind: z.enum(CHANNEL_KINDS),
  name: z.string(),
  enabled: z.boolean(),
  settings: z.record(z.string(), z.unknown()),
  /** Whether a secret (webhook secret, bot token) is stored; the secret itself is never returned. */
  hasSecret: z.boolean(),
  consecutiveFailures: z.number().int(),
  disabledReason: z.string().nullable(),
  createdAt: z.string(),
  /** E-mail channels: each address and whether it confirmed (only confirmed addresses are mailed). */
  recipients: z.array(z.object({ address: z.string(), confirmed: z.boolean() })).optional(),
});
export type Channel = z.infer<typeof ChannelSchema>;

export const DeliverySchema = z.object({
  id: z.string(),
  type: z.string(),
  status: z.enum(["pending", "delivered", "failed"]),
  attempts: z.number().int(),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Delivery = z.infer<typeof DeliverySchema>;
