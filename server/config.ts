/**
 * One idea: the environment read and validated once at boot into one typed configuration
 * (docs/configuration.md lists every variable), and the part of it the browser may see.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { z } from "zod";
import type { PublicConfig } from "../core/publicConfig.ts";
import { parseTrustProxy, TrustProxyRefused, type TrustProxy } from "./http/trustProxy.ts";
import { parseTargetPolicy } from "./net/targets.ts";
import { QUOTA_DEFAULTS, type Quotas } from "./quotas.ts";

/**
 * Environment, validated once at boot (docs/configuration.md lists every variable).
 * Anything the browser may see goes through `publicConfig` — never this object.
 */
const EnvSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().default("localhost"),
    PUBLIC_URL: z.url().optional(),
    DATA_DIR: z.string().default("./data"),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "DATABASE_URL must start with postgres:// or postgresql://")
      .optional(),
    OIDC_AUTHORITY: z.url().optional(),
    OIDC_CLIENT_ID: z.string().min(1).optional(),
    OIDC_AUDIENCE: z.string().min(1).optional(),
    DEMO_PASSWORD: z.string().min(8, "DEMO_PASSWORD must be at least 8 characters").optional(),
    // Trading actions a second of each seeded demo server's simulated traders (server/seed.ts).
    DEMO_TRADE_RATE: z.coerce
      .number({ error: "DEMO_TRADE_RATE must be a number of trading actions per second" })
      .min(0, "DEMO_TRADE_RATE cannot be negative")
      .max(100, "DEMO_TRADE_RATE is at most 100 actions per second")
      .default(3),
    SECRETS_KEY: z
      .string()
      .refine(
        (v) => v.split(",").every(isSecretsKey),
        "SECRETS_KEY must be 32 random bytes in base64 (generate one with: openssl rand -base64 32); to rotate, the new key first, then the older ones, comma-separated",
      )
      .optional(),
    // The event bus across nodes (server/events/nats.ts; docs/events.md). Unset: in-process.
    NATS_URL: z
      .string()
      .refine((v) => v.split(",").every((u) => /^(nats|tls|wss?):\/\/[^\s,]+$/.test(u.trim())), "NATS_URL must be nats://host:port (several comma-separated)")
      .optional(),
    NATS_STREAM: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, "NATS_STREAM holds letters, digits, - and _ only")
      .default("TOOLBOX_EVENTS"),
    NATS_SUBJECT_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, "NATS_SUBJECT_PREFIX is dot-separated tokens of letters, digits, - and _")
      .default("toolbox.ev"),
    NATS_STREAM_MAX_AGE_HOURS: positive("NATS_STREAM_MAX_AGE_HOURS", 24),
    NATS_STREAM_MAX_BYTES: positive("NATS_STREAM_MAX_BYTES", 1024 ** 3),
    NATS_STREAM_MAX_MESSAGES: positive("NATS_STREAM_MAX_MESSAGES", 10_000_000),
    NATS_STREAM_DUPLICATE_WINDOW_SECONDS: positive("NATS_STREAM_DUPLICATE_WINDOW_SECONDS", 120),
    // Several nodes: which one publishes each platform's trade feed (server/events/feedLeases.ts).
    NODE_ID: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,100}$/, "NODE_ID holds 1 to 100 letters, digits, and . _ : -")
      .optional(),
    FEED_LEASE_TTL_MS: z.coerce
      .number({ error: "FEED_LEASE_TTL_MS must be a whole number of milliseconds" })
      .int("FEED_LEASE_TTL_MS must be a whole number of milliseconds")
      .min(300, "FEED_LEASE_TTL_MS must be at least 300")
      .max(600_000, "FEED_LEASE_TTL_MS is at most 600000 (10 minutes)")
      .default(15_000),
    // E-mail (server/mail/; docs/administration.md). Unset: messages go to the organization's outbox.
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\/[^\s]+$/, "SMTP_URL must be smtp://[user:password@]host:port or smtps://… (TLS from the start)")
      .optional(),
    SMTP_FROM: z.string().min(3, "SMTP_FROM must be an address, like Toolbox <toolbox@example.com>").optional(),
    // Who may create an account with the embedded provider.
    SIGN_UP: z.enum(["open", "invite-only", "off"], { error: 'SIGN_UP must be "open", "invite-only" or "off"' }).default("open"),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    // "false"; "true" (= 1 hop); a number of proxy hops; or the proxies' addresses/CIDRs, comma-separated.
    // Never "trust every hop", nor what amounts to it (server/http/trustProxy.ts).
    TRUST_PROXY: z
      .string()
      .default("false")
      .transform((v, ctx): TrustProxy => {
        try {
          return parseTrustProxy(v);
        } catch (err) {
          if (!(err instanceof TrustProxyRefused)) throw err;
          ctx.addIssue({ code: "custom", message: err.message });
          return z.NEVER;
        }
      }),
    // Quotas per organization and per person (server/quotas.ts; docs/configuration.md, "Quotas").
    TOOLBOX_MAX_SIMULATED_PLATFORMS: quota("TOOLBOX_MAX_SIMULATED_PLATFORMS", QUOTA_DEFAULTS.simulatedPlatforms),
    TOOLBOX_MAX_SIMULATED_ACCOUNTS: quota("TOOLBOX_MAX_SIMULATED_ACCOUNTS", QUOTA_DEFAULTS.simulatedAccounts),
    TOOLBOX_MAX_SIMULATED_TRADE_RATE: quota("TOOLBOX_MAX_SIMULATED_TRADE_RATE", QUOTA_DEFAULTS.simulatedTradeRate),
    TOOLBOX_MAX_ORGANIZATIONS_PER_PERSON: quota("TOOLBOX_MAX_ORGANIZATIONS_PER_PERSON", QUOTA_DEFAULTS.organizationsPerPerson),
    TOOLBOX_MAX_PREFERENCE_KEYS: quota("TOOLBOX_MAX_PREFERENCE_KEYS", QUOTA_DEFAULTS.preferenceKeys),
    TOOLBOX_MAX_CUSTOMERS: quota("TOOLBOX_MAX_CUSTOMERS", QUOTA_DEFAULTS.customers),
    // Live streams (Server-Sent Events) open at once on this node, per person and per organization (server/http/streamCaps.ts).
    TOOLBOX_MAX_LIVE_STREAMS_PER_PERSON: positive("TOOLBOX_MAX_LIVE_STREAMS_PER_PERSON", 16),
    TOOLBOX_MAX_LIVE_STREAMS_PER_ORGANIZATION: positive("TOOLBOX_MAX_LIVE_STREAMS_PER_ORGANIZATION", 200),
    // The trade history store (docs/decisions/0039-trade-history-store.md).
    TRADE_HISTORY_BACKFILL_DAYS: days("TRADE_HISTORY_BACKFILL_DAYS", 30, 0),
    TRADE_HISTORY_RETENTION_DAYS: days("TRADE_HISTORY_RETENTION_DAYS", 90, 1),
    TRADE_HISTORY_MAX_QUEUED_EVENTS: positive("TRADE_HISTORY_MAX_QUEUED_EVENTS", 50_000),
    // The Trades Blotter's live streams (docs/decisions/0060-blotter-server-stream-frames-channels-and-bounds.md).
    BLOTTER_STREAM_MAX_TOTAL_BYTES: positive("BLOTTER_STREAM_MAX_TOTAL_BYTES", 64 * 1024 * 1024),
    BLOTTER_STREAM_MAX_TOTAL_ROWS: positive("BLOTTER_STREAM_MAX_TOTAL_ROWS", 100_000),
    BLOTTER_STREAM_MAX_BUFFERED_BYTES: positive("BLOTTER_STREAM_MAX_BUFFERED_BYTES", 512 * 1024),
    BLOTTER_STREAM_MAX_BUFFERED_BYTES_CAP: positive("BLOTTER_STREAM_MAX_BUFFERED_BYTES_CAP", 8 * 1024 * 1024),
    // Notifications (docs/notifications.md): where outgoing requests may go, the Telegram Bot API, retries.
    TOOLBOX_ALLOWED_TARGETS: z
      .string()
      .optional()
      .superRefine((v, ctx) => {
        try {
          parseTargetPolicy(v);
        } catch (err) {
          ctx.addIssue({ code: "custom", message: (err as Error).message });
        }
      }),
    // Real trade servers (server/connectors/target.ts): internal addresses they may have, e.g. the local protocol servers.
    TRADE_SERVER_ALLOWED_TARGETS: z
      .string()
      .optional()
      .superRefine((v, ctx) => {
        try {
          parseTargetPolicy(v, "TRADE_SERVER_ALLOWED_TARGETS");
        } catch (err) {
          ctx.addIssue({ code: "custom", message: (err as Error).message });
        }
      }),
    TELEGRAM_API_URL: z
      .string()
      .refine((v) => /^https?:\/\/[^\s]+$/.test(v) && URL.canParse(v), "TELEGRAM_API_URL must be an http:// or https:// address")
      .default("https://api.telegram.org"),
    NOTIFICATIONS_MAX_ATTEMPTS: positive("NOTIFICATIONS_MAX_ATTEMPTS", 5),
    NOTIFICATIONS_RETRY_BASE_MS: positive("NOTIFICATIONS_RETRY_BASE_MS", 2_000),
    NOTIFICATIONS_DISABLE_AFTER: positive("NOTIFICATIONS_DISABLE_AFTER", 5),
    NOTIFICATIONS_RECONNECT_SETTLE_MS: positive("NOTIFICATIONS_RECONNECT_SETTLE_MS", 10_000),
    NOTIFICATIONS_MAX_EMAILS_PER_HOUR: quota("NOTIFICATIONS_MAX_EMAILS_PER_HOUR", 200),
    NOTIFICATIONS_POLL_MS: positive("NOTIFICATIONS_POLL_MS", 5_000),
  })
  .refine(
    (e) =>
      [e.OIDC_AUTHORITY, e.OIDC_CLIENT_ID, e.OIDC_AUDIENCE].every((v) => v === undefined) ||
      [e.OIDC_AUTHORITY, e.OIDC_CLIENT_ID, e.OIDC_AUDIENCE].every((v) => v !== undefined),
    { message: "OIDC_AUTHORITY, OIDC_CLIENT_ID and OIDC_AUDIENCE must be set together (or none, for the embedded provider)" },
  );

export type Env = z.infer<typeof EnvSchema>;

export interface Config {
  env: Env["NODE_ENV"];
  port: number;
  host: string;
  /** Origin the browser uses, e.g. http://localhost:3000 (no trailing slash). */
  publicUrl: string;
  dataDir: string;
  databaseUrl?: string;
  logLevel: Env["LOG_LEVEL"];
  /** false, a number of proxy hops, or the proxies' addresses (comma-separated) — never "all". */
  trustProxy: false | number | string;
  demoPassword?: string;
  /** Trading actions a second of each seeded demo server (3 by default; the browser tests use less). */
  demoTradeRate: number;
  /** The event bus across nodes; absent: in-process (docs/events.md). */
  nats?: {
    /** May hold credentials: never logged or shown (health shows host:port only). */
    url: string;
    stream: string;
    subjectPrefix: string;
    maxAgeMs: number;
    maxBytes: number;
    maxMessages: number;
    /** How long the stream drops a repeated message id (`Nats-Msg-Id`). */
    duplicateWindowMs: number;
  };
  /**
   * This process among several nodes: its id (NODE_ID, else random per process) and the time to
   * live of the trade feed leases it takes (docs/events.md, "Several nodes").
   */
  node: { id: string; feedLeaseTtlMs: number };
  /** Limits per organization and per person (server/quotas.ts). */
  quotas: Quotas;
  /** Live streams (Server-Sent Events) open at once on this node: per person, per organization (server/http/streamCaps.ts). */
  liveStreams: { perPerson: number; perOrganization: number };
  /**
   * The trade history store: days read on a platform's first connect, days deals are kept, live
   * events queued for the database at most (past it they are dropped and the platforms read again).
   */
  tradeHistory: { backfillDays: number; retentionDays: number; maxQueuedEvents: number };
  /** The Trades Blotter's live streams: the node's budget (rows gathered, bytes unsent) and each stream's bound. */
  blotterStream: { maxTotalBytes: number; maxTotalRows: number; maxBufferedBytes: number; maxBufferedBytesCap: number };
  /** Outgoing e-mail; absent: messages go to each organization's outbox (docs/administration.md). */
  mail: {
    /** May hold credentials: never logged or shown. */
    smtpUrl?: string;
    from: string;
  };
  /** Who may create an account with the embedded provider: anyone, invitees only, nobody. */
  signUp: "open" | "invite-only" | "off";
  /** Real trade servers: loopback, private and link-local addresses they may still have (TRADE_SERVER_ALLOWED_TARGETS). */
  tradeServers: { allowedTargets: string };
  /** Outgoing notifications (docs/notifications.md). */
  notifications: {
    /** Private, loopback and metadata addresses webhooks and Telegram may still reach (TOOLBOX_ALLOWED_TARGETS). */
    allowedTargets: string;
    telegramApiUrl: string;
    /** Tries of one delivery, the first included. */
    maxAttempts: number;
    /** The wait before the first retry; doubled for each next one. */
    retryBaseMs: number;
    /** Deliveries failed in a row (after their retries) that switch a channel off. */
    disableAfter: number;
    /** How long a platform must stay connected again before "reconnected" is sent (a flapping link sends nothing more). */
    reconnectSettleMs: number;
    /** E-mails (recipients counted, confirmations included) one organization's notifications may send in an hour; 0 sends none. */
    maxEmailsPerHour: number;
    /** How often each node looks for deliveries due (retries kept across restarts). */
    pollEveryMs: number;
  };
  /**
   * Key (32 bytes, base64) that encrypts secrets at rest (server/secrets/), optionally followed by
   * older keys still accepted for reading, comma-separated. Unset: one is generated once into
   * `$DATA_DIR/secrets.key`.
   */
  secretsKey?: string;
  oidc: {
    /** true when Toolbox runs its own provider under /oidc. */
    embedded: boolean;
    authority: string;
    clientId: string;
    audience: string;
    scope: string;
  };
}

/** The embedded provider's fixed names; docs/security.md explains them. */
export const EMBEDDED_CLIENT_ID = "toolbox-web";
export const API_AUDIENCE = "toolbox.api";
export const API_SCOPE = "toolbox.api";
/** RFC 8707 resource indicator of the API (an absolute URI, as the RFC requires). */
export const API_RESOURCE = "urn:toolbox:api";

export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  // An empty variable means "not set" (as shells and .env files commonly leave them).
  const present = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  - ${i.path.join(".") || "env"}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  const embedded = e.OIDC_AUTHORITY === undefined;
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
    demoPassword: e.DEMO_PASSWORD,
    demoTradeRate: e.DEMO_TRADE_RATE,
    ...(e.NATS_URL
      ? {
          nats: {
            url: e.NATS_URL,
            stream: e.NATS_STREAM,
            subjectPrefix: e.NATS_SUBJECT_PREFIX,
            maxAgeMs: e.NATS_STREAM_MAX_AGE_HOURS * 3_600_000,
            maxBytes: e.NATS_STREAM_MAX_BYTES,
            maxMessages: e.NATS_STREAM_MAX_MESSAGES,
            duplicateWindowMs: e.NATS_STREAM_DUPLICATE_WINDOW_SECONDS * 1000,
          },
        }
      : {}),
    node: { id: e.NODE_ID ?? `node-${randomUUID()}`, feedLeaseTtlMs: e.FEED_LEASE_TTL_MS },
    quotas: {
      simulatedPlatforms: e.TOOLBOX_MAX_SIMULATED_PLATFORMS,
      simulatedAccounts: e.TOOLBOX_MAX_SIMULATED_ACCOUNTS,
      simulatedTradeRate: e.TOOLBOX_MAX_SIMULATED_TRADE_RATE,
      organizationsPerPerson: e.TOOLBOX_MAX_ORGANIZATIONS_PER_PERSON,
      preferenceKeys: e.TOOLBOX_MAX_PREFERENCE_KEYS,
      customers: e.TOOLBOX_MAX_CUSTOMERS,
    },
    liveStreams: { perPerson: e.TOOLBOX_MAX_LIVE_STREAMS_PER_PERSON, perOrganization: e.TOOLBOX_MAX_LIVE_STREAMS_PER_ORGANIZATION },
    tradeHistory: {
      backfillDays: e.TRADE_HISTORY_BACKFILL_DAYS,
      retentionDays: e.TRADE_HISTORY_RETENTION_DAYS,
      maxQueuedEvents: e.TRADE_HISTORY_MAX_QUEUED_EVENTS,
    },
    blotterStream: {
      maxTotalBytes: e.BLOTTER_STREAM_MAX_TOTAL_BYTES,
      maxTotalRows: e.BLOTTER_STREAM_MAX_TOTAL_ROWS,
      maxBufferedBytes: e.BLOTTER_STREAM_MAX_BUFFERED_BYTES,
      maxBufferedBytesCap: e.BLOTTER_STREAM_MAX_BUFFERED_BYTES_CAP,
    },
    mail: { smtpUrl: e.SMTP_URL, from: e.SMTP_FROM ?? `Toolbox <toolbox@${new URL(publicUrl).hostname}>` },
    signUp: e.SIGN_UP,
    tradeServers: { allowedTargets: e.TRADE_SERVER_ALLOWED_TARGETS ?? "" },
    notifications: {
      allowedTargets: e.TOOLBOX_ALLOWED_TARGETS ?? "",
      telegramApiUrl: e.TELEGRAM_API_URL.replace(/\/+$/, ""),
      maxAttempts: e.NOTIFICATIONS_MAX_ATTEMPTS,
      retryBaseMs: e.NOTIFICATIONS_RETRY_BASE_MS,
      disableAfter: e.NOTIFICATIONS_DISABLE_AFTER,
      reconnectSettleMs: e.NOTIFICATIONS_RECONNECT_SETTLE_MS,
      maxEmailsPerHour: e.NOTIFICATIONS_MAX_EMAILS_PER_HOUR,
      pollEveryMs: e.NOTIFICATIONS_POLL_MS,
    },
    secretsKey: e.SECRETS_KEY?.split(",")
      .map((k) => k.trim())
      .join(","),
    oidc: {
      embedded,
      authority: embedded ? `${publicUrl}/oidc` : e.OIDC_AUTHORITY!.replace(/\/+$/, ""),
      clientId: e.OIDC_CLIENT_ID ?? EMBEDDED_CLIENT_ID,
      audience: e.OIDC_AUDIENCE ?? API_AUDIENCE,
      scope: `openid profile email ${API_SCOPE}`,
    },
  };
}

/** A quota: a whole number, 0 or more (0 allows none). */
function quota(name: string, fallback: number) {
  return z.coerce
    .number({ error: `${name} must be a whole number` })
    .int(`${name} must be a whole number`)
    .min(0, `${name} cannot be negative (0 allows none)`)
    .max(Number.MAX_SAFE_INTEGER, `${name} is too large`)
    .default(fallback);
}

/** A number of days, from `min` to ten years. */
function days(name: string, fallback: number, min: number) {
  return z.coerce
    .number({ error: `${name} must be a whole number of days` })
    .int(`${name} must be a whole number of days`)
    .min(min, `${name} must be at least ${min}`)
    .max(3650, `${name} is at most 3650 (ten years)`)
    .default(fallback);
}

/** A positive whole number. */
function positive(name: string, fallback: number) {
  return z.coerce
    .number({ error: `${name} must be a whole number` })
    .int(`${name} must be a whole number`)
    .min(1, `${name} must be at least 1`)
    .max(Number.MAX_SAFE_INTEGER, `${name} is too large`)
    .default(fallback);
}

/** 32 bytes in base64 or base64url, padding optional. */
function isSecretsKey(value: string): boolean {
  const text = value.trim();
  return /^[A-Za-z0-9+/_-]+={0,2}$/.test(text) && Buffer.from(text, "base64").length === 32;
}

export function publicConfig(config: Config, buildId: string): PublicConfig {
  return {
    authority: config.oidc.authority,
    clientId: config.oidc.clientId,
    scope: config.oidc.scope,
    audience: config.oidc.audience,
    resource: config.oidc.embedded ? API_RESOURCE : undefined,
    buildId,
  };
}
