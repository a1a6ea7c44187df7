import { PLATFORM_NAME_MAX, SIMULATED_SEED_MAX, SIMULATED_TRADE_RATE_MAX } from "../../../core/schemas/platform.ts";
import { z } from "zod";
import { MAX_SIMULATED_ACCOUNTS } from "../../connectors/simulated/server.ts";
import { PLATFORM_APP_VALUES, TRADE_PLATFORM_TYPE_VALUES } from "../../db/tables/platforms.ts";
import { isTimeZone } from "../../platforms/timeZone.ts";

export const TRADE_PLATFORM_TYPES = TRADE_PLATFORM_TYPE_VALUES;
export const CONNECTION_STATES = ["disconnected", "connecting", "connected", "reconnecting", "failed"] as const;

const PlatformType = z.enum(TRADE_PLATFORM_TYPES, { error: "type must be one of MT4, MT5, MatchTrader" });
const PlatformName = z
  .string({ error: "name must be text" })
  .trim()
  .min(1, "Give the platform a name")
  .max(PLATFORM_NAME_MAX, `A platform name has at most ${PLATFORM_NAME_MAX} characters`);
const TimeZone = z
  .string({ error: "timeZone must be text" })
  .refine(isTimeZone, "timeZone must be an IANA time zone name, such as Europe/London, Asia/Nicosia or UTC");
const App = z.enum(PLATFORM_APP_VALUES, { error: "app must be tradesBlotter or tradesCopier" });
const Id = z.string();

/** Passwords and API keys: write-only, never in an answer. */
const Secret = z
  .string()
  .min(1, "must not be empty")
  .max(256, "has at most 256 characters")
  .meta({ writeOnly: true, description: "Write-only: stored encrypted, never returned" });
const ManagerLogin = z.string().trim().min(1, "Enter the manager login").max(64, "A manager login has at most 64 characters");
const Address = z
  .string()
  .trim()
  .regex(/^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\]):\d{1,5}$/, {
    message: "address must be host:port, such as mt5.example.com:443",
  });
const ApiUrl = z.url({ protocol: /^https?$/, error: "apiUrl must be an http(s) URL, such as https://broker-api.example.com" });

function connectionSchema(secretRequired: boolean) {
  const secret = secretRequired ? Secret : Secret.optional();
  return z.discriminatedUnion(
    "kind",
    [
      z.object({
        kind: z.literal("simulated"),
        accounts: z
          .number()
          .int("accounts must be a whole number")
          .min(0, "accounts cannot be negative")
          .max(MAX_SIMULATED_ACCOUNTS, `A simulated server holds at most ${MAX_SIMULATED_ACCOUNTS} accounts`)
          .optional(),
        tradeRate: z
          .number()
          .min(0, "tradeRate (trading actions per second) cannot be negative")
          .max(SIMULATED_TRADE_RATE_MAX, `tradeRate is at most ${SIMULATED_TRADE_RATE_MAX} actions per second`)
          .optional(),
        seed: z.number().int("seed must be a whole number").min(0, "seed cannot be negative").max(SIMULATED_SEED_MAX).optional(),
        /** A manager login for the simulated server (its built-in manager is 1000 / Manager1); without it, the built-in one is used. */
        login: ManagerLogin.optional(),
        password: Secret.optional(),
      }),
      z.object({ kind: z.literal("mt5WebApi"), address: Address, login: ManagerLogin, password: secret }),
      z.object({ kind: z.literal("mt4Gateway"), address: Address, login: ManagerLogin, password: secret }),
      z.object({ kind: z.literal("matchTraderApi"), apiUrl: ApiUrl, apiKey: secret }),
    ],
    { error: "connection.kind must be one of simulated, mt5WebApi, mt4Gateway, matchTraderApi" },
  );
}

/** A new connection: real kinds need their password / API key. */
export const NewConnectionSchema = connectionSchema(true);
/** A changed connection: a missing password / API key keeps the stored one (same kind). */
export const ConnectionChangeSchema = connectionSchema(false);

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

export const TestConnectionResultSchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), serverTime: z.string(), accounts: z.number().int() }),
  z.object({
    ok: z.literal(false),
    code: z.enum(["unreachable", "credentialsRefused", "timeout", "invalidRequest"]),
    message: z.string(),
  }),
]);

export const PlatformIdParams = z.object({ id: Id });

export const PlatformAppSchema = z.object({ app: App, enabled: z.boolean({ error: "enabled must be true or false" }) });
export const PlatformAppsSchema = z.array(PlatformAppSchema);
export const SetPlatformAppsSchema = z
  .array(PlatformAppSchema)
  .max(PLATFORM_APP_VALUES.length)
  .refine((apps) => new Set(apps.map((a) => a.app)).size === apps.length, "Name each application once");

export const AssignApplicationSchema = z.object({
  app: App,
  platformIds: z.array(Id).min(1, "Choose at least one platform").max(500),
});
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

export const PublicConnectionSchema = z.object({
  kind: z.enum(["simulated", "mt5WebApi", "mt4Gateway", "matchTraderApi"]),
  address: z.string().optional(),
  login: z.string().optional(),
  apiUrl: z.string().optional(),
  accounts: z.number().optional(),
  tradeRate: z.number().optional(),
  seed: z.number().optional(),
  hasSecret: z.boolean(),
});

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

export type CreatePlatformBody = z.infer<typeof CreatePlatformSchema>;
export type UpdatePlatformBody = z.infer<typeof UpdatePlatformSchema>;
export type TestConnectionBody = z.infer<typeof TestConnectionSchema>;
export type PlatformDetail = z.infer<typeof PlatformDetailSchema>;
