/**
 * The trade platform endpoints' contract, once: the request and response schemas of
 * /api/tradePlatforms and the limits they use. They serve the routes (validation and the
 * OpenAPI document, server/modules/tradePlatforms/routes.ts), the connect/edit form
 * (app/features/trade-platforms/form/platformForm.ts checks its values with them, so the form and
 * the API give the same messages) and the app's types (inferred here, never written by hand); the
 * stored connection shape is the database's type (server/db/tables/platforms.ts). Where the form
 * and the API used to disagree (control characters in a name, a port past 65535, an offset as a
 * time zone), the stricter rule now holds for both.
 */
import { z } from "zod";
import { TRADE_PLATFORM_TYPES } from "../trading/platform.ts";
import { isTimeZone } from "./timeZone.ts";

// ── Limits and defaults ──────────────────────────────────────────────────────────────────────

export const PLATFORM_NAME_MAX = 100;
export const MANAGER_LOGIN_MAX = 64;
export const SECRET_MAX = 256;

export const SIMULATED_ACCOUNTS_DEFAULT = 300;
export const SIMULATED_ACCOUNTS_MAX = 100_000;
/** Simulated trading actions per second. */
export const SIMULATED_TRADE_RATE_DEFAULT = 3;
export const SIMULATED_TRADE_RATE_MAX = 10_000;
export const SIMULATED_SEED_MAX = 0xffffffff;

export const CONNECTION_KINDS = ["simulated", "mt5WebApi", "mt4Gateway", "matchTraderApi"] as const;
export type ConnectionKind = (typeof CONNECTION_KINDS)[number];

export const CONNECTION_STATES = ["disconnected", "connecting", "connected", "reconnecting", "failed"] as const;

/** The applications a platform can be assigned to. */
export const PLATFORM_APPS = ["tradesBlotter", "tradesCopier", "quotesMonitor"] as const;
export type PlatformApp = (typeof PLATFORM_APPS)[number];

// ── Fields ───────────────────────────────────────────────────────────────────────────────────

const PlatformType = z.enum(TRADE_PLATFORM_TYPES, { error: "type must be one of MT4, MT5, MatchTrader" });

const PlatformName = z
  .string({ error: "name must be text" })
  .trim()
  .min(1, "Give the platform a name")
  .max(PLATFORM_NAME_MAX, `A platform name has at most ${PLATFORM_NAME_MAX} characters`)
  // eslint-disable-next-line no-control-regex -- control characters are what we refuse
  .regex(/^[^\u0000-\u001f\u007f]*$/, "A platform name cannot hold control characters");

const TimeZone = z
  .string({ error: "timeZone must be text" })
  .refine(isTimeZone, "timeZone must be an IANA time zone name, such as Europe/London, Asia/Nicosia or UTC");

const App = z.enum(PLATFORM_APPS, { error: "app must be tradesBlotter, tradesCopier or quotesMonitor" });
const Id = z.string();

/** Passwords and API keys: write-only, never in an answer. */
function secret(what: string) {
  return z
    .string({ error: (issue) => (issue.input === undefined ? `Enter the ${what}` : `The ${what} must be text`) })
    .min(1, `Enter the ${what}`)
    .max(SECRET_MAX, `The ${what} has at most ${SECRET_MAX} characters`)
    .meta({ writeOnly: true, description: "Write-only: stored encrypted, never returned" });
}

const ManagerLogin = z
  .string({ error: "Enter the manager login" })
  .trim()
  .min(1, "Enter the manager login")
  .max(MANAGER_LOGIN_MAX, `A manager login has at most ${MANAGER_LOGIN_MAX} characters`);

/** host:port, as `field` names it in messages. */
function hostPort(field: string, example: string) {
  const message = `${field} must be host:port, such as ${example}`;
  return z
    .string({ error: message })
    .trim()
    .regex(/^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\]):\d{1,5}$/, { message })
    .refine((a) => Number(a.slice(a.lastIndexOf(":") + 1)) >= 1 && Number(a.slice(a.lastIndexOf(":") + 1)) <= 65535, "The port must be from 1 to 65535");
}

const Address = hostPort("address", "mt5.example.com:443");

/** The CA that signed a trade server's certificate (MT5 access server, Match-Trader API and feed), PEM; public, stored in the clear. Absent: the system's CAs. */
export const CA_CERTIFICATE_MAX = 20_000;
/** Any PEM private key block: PRIVATE KEY, RSA/EC/ENCRYPTED/OPENSSH PRIVATE KEY, PGP PRIVATE KEY BLOCK. */
const PRIVATE_KEY_PEM = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z0-9 ]*-----/i;
export const CA_CERTIFICATE_HOLDS_KEY =
  "This holds a private key: paste only the CA's certificate (-----BEGIN CERTIFICATE-----). A private key never belongs here; if it was shared, replace it.";
export const CaCertificate = z
  .string({ error: "caCertificate must be a PEM certificate" })
  .trim()
  // First, and alone: a pasted key is refused whatever else is wrong, and nothing is stored.
  .refine((v) => !PRIVATE_KEY_PEM.test(v), { message: CA_CERTIFICATE_HOLDS_KEY, abort: true })
  .max(CA_CERTIFICATE_MAX, `The CA certificate has at most ${CA_CERTIFICATE_MAX} characters`)
  .regex(
    /^-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----$/,
    "The CA certificate must be in PEM form, from -----BEGIN CERTIFICATE----- to -----END CERTIFICATE-----",
  );

/** The API key travels with every request: HTTPS only (decision 0058). */
const ApiUrl = z.url({ protocol: /^https$/, error: "apiUrl must be an https:// URL, such as https://broker-api.example.com" });

const GrpcAddress = hostPort("grpcAddress", "grpc-broker-api.example.com:443");
/** Match-Trader: the group whose prices (with its markup) the Quotes Monitor streams; the first offer's group when absent. */
const QuotesGroup = z
  .string({ error: "quotesGroup must be text" })
  .trim()
  .min(1, "quotesGroup must not be empty: leave it out for the first offer's group")
  .max(100, "quotesGroup has at most 100 characters");

const SimulatedAccounts = z
  .number({ error: `accounts must be a whole number from 0 to ${SIMULATED_ACCOUNTS_MAX}` })
  .int("accounts must be a whole number")
  .min(0, "accounts cannot be negative")
  .max(SIMULATED_ACCOUNTS_MAX, `A simulated server holds at most ${SIMULATED_ACCOUNTS_MAX} accounts`);

const SimulatedTradeRate = z
  .number({ error: `tradeRate must be a number of trading actions per second, from 0 to ${SIMULATED_TRADE_RATE_MAX}` })
  .min(0, "tradeRate (trading actions per second) cannot be negative")
  .max(SIMULATED_TRADE_RATE_MAX, `tradeRate is at most ${SIMULATED_TRADE_RATE_MAX} actions per second`);

const SimulatedSeed = z
  .number({ error: "seed must be a whole number" })
  .int("seed must be a whole number")
  .min(0, "seed cannot be negative")
  .max(SIMULATED_SEED_MAX, `seed is at most ${SIMULATED_SEED_MAX}`);

// ── Connections ──────────────────────────────────────────────────────────────────────────────

/** The connection union; `secretOf` says whether a real kind's password / API key is required. */
function connectionSchema<S extends z.ZodType<string | undefined>>(secretOf: (what: string) => S) {
  return z.discriminatedUnion(
    "kind",
    [
      z.object({
        kind: z.literal("simulated"),
        accounts: SimulatedAccounts.optional(),
        tradeRate: SimulatedTradeRate.optional(),
        seed: SimulatedSeed.optional(),
        /** A manager login for the simulated server (its built-in manager is 1000 / Manager1); without it, the built-in one is used. */
        login: ManagerLogin.optional(),
        password: secret("manager password").optional(),
      }),
      z.object({
        kind: z.literal("mt5WebApi"),
        address: Address,
        login: ManagerLogin,
        password: secretOf("manager password"),
        caCertificate: CaCertificate.optional(),
      }),
      z.object({
        kind: z.literal("mt4Gateway"),
        address: Address,
        login: ManagerLogin,
        password: secretOf("manager password"),
        caCertificate: CaCertificate.optional(),
      }),
      z.object({
        kind: z.literal("matchTraderApi"),
        apiUrl: ApiUrl,
        /** The live feed (gRPC over TLS); the API URL's host and port when absent. */
        grpcAddress: GrpcAddress.optional(),
        quotesGroup: QuotesGroup.optional(),
        apiKey: secretOf("API key"),
        caCertificate: CaCertificate.optional(),
      }),
    ],
    { error: `connection.kind must be one of ${CONNECTION_KINDS.join(", ")}` },
  );
}

/** A new connection: real kinds need their password / API key. */
export const NewConnectionSchema = connectionSchema(secret);
/** A changed connection: a missing password / API key keeps the stored one (same kind). */
export const ConnectionChangeSchema = connectionSchema((what) => secret(what).optional());

/**
 * How Toolbox reaches a platform, as stored (server/db/tables/platforms.ts), without its secret:
 * the manager password or API key lives only in `secret_ciphertext`, encrypted. Defaults filled
 * in (a simulated server always has its size, rate and seed).
 */
export const StoredConnectionSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("simulated"),
    accounts: z.number(),
    tradeRate: z.number(),
    seed: z.number(),
    /** Manager login offered to the simulated server; its password is the platform's secret. Absent: the built-in manager. */
    login: z.string().optional(),
  }),
  z.object({ kind: z.literal("mt5WebApi"), address: z.string(), login: z.string(), caCertificate: z.string().optional() }),
  z.object({ kind: z.literal("mt4Gateway"), address: z.string(), login: z.string(), caCertificate: z.string().optional() }),
  z.object({
    kind: z.literal("matchTraderApi"),
    apiUrl: z.string(),
    grpcAddress: z.string().optional(),
    quotesGroup: z.string().optional(),
    caCertificate: z.string().optional(),
  }),
]);

/** What the API shows of a connection: never the secret, only whether one is stored. */
export const PublicConnectionSchema = z.object({
  kind: z.enum(CONNECTION_KINDS),
  address: z.string().optional(),
  login: z.string().optional(),
  apiUrl: z.string().optional(),
  /** Match-Trader: the live feed's host:port, when not the API URL's. */
  grpcAddress: z.string().optional(),
  /** Match-Trader: the group whose prices the Quotes Monitor streams, when not the first offer's. */
  quotesGroup: z.string().optional(),
  /** MT5 Web API, MT4 gateway and Match-Trader: the CA certificate trusted for the server (public data). */
  caCertificate: z.string().optional(),
  accounts: z.number().optional(),
  tradeRate: z.number().optional(),
  seed: z.number().optional(),
  hasSecret: z.boolean(),
});

// ── Requests ─────────────────────────────────────────────────────────────────────────────────

export const CreatePlatformSchema = z.object({
  type: PlatformType,
  name: PlatformName,
  timeZone: TimeZone,
  connection: NewConnectionSchema,
});

export const UpdatePlatformSchema = z.object({
  name: PlatformName.optional(),
  enable: z.boolean({ error: "enable must be true or false" }).optional(),
  timeZone: TimeZone.optional(),
  connection: ConnectionChangeSchema.optional(),
});

export const DeletePlatformSchema = z.object({
  confirmName: z.string({ error: "Type the platform's name to confirm" }),
});

export const TestConnectionSchema = z.object({
  type: PlatformType,
  connection: ConnectionChangeSchema,
  /** The server's zone (simulated servers keep it); UTC when absent. */
  timeZone: TimeZone.optional(),
  /** Testing a saved platform's changed settings: a missing password / API key is the stored one. */
  platformId: Id.optional(),
});

export const PlatformIdParams = z.object({ id: Id });

export const PlatformAppSchema = z.object({ app: App, enabled: z.boolean({ error: "enabled must be true or false" }) });
export const PlatformAppsSchema = z.array(PlatformAppSchema);
export const SetPlatformAppsSchema = z
  .array(PlatformAppSchema)
  .max(PLATFORM_APPS.length)
  .refine((apps) => new Set(apps.map((a) => a.app)).size === apps.length, "Name each application once");

export const AssignApplicationSchema = z.object({
  app: App,
  platformIds: z.array(Id).min(1, "Choose at least one platform").max(500),
});

// ── Responses ────────────────────────────────────────────────────────────────────────────────

export const TestConnectionResultSchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), serverTime: z.string(), accounts: z.number().int() }),
  z.object({
    ok: z.literal(false),
    code: z.enum(["unreachable", "credentialsRefused", "timeout", "invalidRequest", "rateLimited"]),
    message: z.string(),
  }),
]);

export const AssignApplicationResultSchema = z.array(z.object({ platformId: z.guid(), app: App, enabled: z.literal(true) }));

const PlatformState = z.object({
  state: z.enum(CONNECTION_STATES),
  lastError: z.string().nullable(),
});

export const TradePlatformSchema = z.object({
  id: z.guid(),
  organizationId: z.guid(),
  type: PlatformType,
  name: z.string(),
  enable: z.boolean(),
  ...PlatformState.shape,
});

export const TradePlatformListSchema = z.array(TradePlatformSchema);

export const PlatformDetailSchema = z.object({
  id: z.guid(),
  organizationId: z.guid(),
  type: PlatformType,
  name: z.string(),
  enable: z.boolean(),
  timeZone: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  connection: PublicConnectionSchema,
  ...PlatformState.shape,
  serverTime: z.string().optional(),
  apps: PlatformAppsSchema,
});

// ── Types (inferred: the app and the server use these, never hand-written copies) ─────────────

/** POST /api/tradePlatforms, as sent. */
export type CreatePlatformBody = z.infer<typeof CreatePlatformSchema>;
/** PATCH /api/tradePlatforms/:id, as sent. */
export type UpdatePlatformBody = z.infer<typeof UpdatePlatformSchema>;
export type TestConnectionBody = z.infer<typeof TestConnectionSchema>;
/** A connection as the API receives it. On a change, an absent password / API key keeps the stored one. */
export type ConnectionInput = z.infer<typeof ConnectionChangeSchema>;
export type StoredConnection = z.infer<typeof StoredConnectionSchema>;
export type PublicConnection = z.infer<typeof PublicConnectionSchema>;
export type PlatformDetail = z.infer<typeof PlatformDetailSchema>;
export type PlatformAppAssignment = z.infer<typeof PlatformAppSchema>;
export type TestConnectionResult = z.infer<typeof TestConnectionResultSchema>;
export type AssignApplicationResult = z.infer<typeof AssignApplicationResultSchema>;
