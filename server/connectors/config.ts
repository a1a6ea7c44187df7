/**
 * How a platform's connection is described, validated once where it enters (the API, the
 * database). One schema gives the type too: simulated servers, the MT5 Web API and the Match-Trader
 * Broker API and the MT4 manager gateway.
 */
import { z } from "zod";
import { CaCertificate } from "../../core/schemas/platform.ts";
import { TRADE_PLATFORM_TYPES } from "../../core/trading/platform.ts";
import { MAX_SIMULATED_ACCOUNTS } from "./simulated/server.ts";

export const tradePlatformTypeSchema = z.enum(TRADE_PLATFORM_TYPES);

export const simulatedServerOptionsSchema = z.object({
  seed: z.number().int().min(0).max(0xffffffff).optional(),
  accounts: z.number().int().min(0).max(MAX_SIMULATED_ACCOUNTS).optional(),
  /** Simulated trading actions per second. */
  tradeRate: z.number().min(0).max(100_000).optional(),
  timeZoneOffsetMinutes: z.number().int().min(-720).max(840).optional(),
});

const timeouts = {
  requestTimeoutMs: z.number().int().min(100).max(300_000).optional(),
  connectTimeoutMs: z.number().int().min(100).max(300_000).optional(),
};

export const simulatedConnectorConfigSchema = z.object({
  kind: z.literal("simulated"),
  platform: tradePlatformTypeSchema,
  /** Names the in-process server, so reconnecting (or a second connection) reaches the same one. */
  serverKey: z.string().min(1).max(200),
  server: simulatedServerOptionsSchema.optional(),
  credentials: z.object({ login: z.string().min(1), password: z.string().min(1) }).optional(),
  ...timeouts,
});

/** PEM certificates (a CA, possibly with intermediates): the API's own schema, checked again where a connection is built. */
const caCertificateSchema = CaCertificate;

export const mt5WebApiConnectorConfigSchema = z.object({
  kind: z.literal("mt5WebApi"),
  /** host:port of the access server (HTTPS). */
  address: z.string().min(3).max(300),
  credentials: z.object({ login: z.string().min(1), password: z.string().min(1) }),
  /** The CA that signed the server's certificate; the system's CAs when absent. */
  caCertificate: caCertificateSchema.optional(),
  ...timeouts,
});

/** An MT4 manager gateway (docs/mt4-gateway.md): HTTPS with the manager's login and password. */
export const mt4GatewayConnectorConfigSchema = z.object({
  kind: z.literal("mt4Gateway"),
  /** host:port of the gateway (HTTPS). */
  address: z.string().min(3).max(300),
  credentials: z.object({ login: z.string().min(1), password: z.string().min(1) }),
  /** The CA that signed the gateway's certificate; the system's CAs when absent. */
  caCertificate: caCertificateSchema.optional(),
  ...timeouts,
});

/** A Match-Trader Broker API server (docs/connectors.md#vendor-match-trader): REST base URL (HTTPS only), gRPC feed (TLS), API token. */
export const matchTraderApiConnectorConfigSchema = z.object({
  kind: z.literal("matchTraderApi"),
  apiUrl: z.url({ protocol: /^https$/ }),
  /** host:port of the gRPC feed; the REST host and port by default. */
  grpcAddress: z.string().min(3).max(300).optional(),
  /** The group whose prices the quotes stream asks for (with its markup); the first offer's group by default. */
  quotesGroup: z.string().min(1).max(100).optional(),
  /** The decrypted API token: stored encrypted by the platform service, never logged or returned. */
  apiKey: z.string().min(1),
  /** The CA that signed the server's certificates (REST and feed); the system's CAs when absent. Never "any certificate". */
  caCertificate: caCertificateSchema.optional(),
  requestsPerMinute: z.number().int().min(1).max(100_000).optional(),
  /** How many times a 429 is waited out (as long as Retry-After says) before failing as serverBusy; 3 by default. */
  retriesOn429: z.number().int().min(0).max(10).optional(),
  ...timeouts,
});

export const connectorConfigSchema = z.discriminatedUnion("kind", [
  simulatedConnectorConfigSchema,
  mt5WebApiConnectorConfigSchema,
  mt4GatewayConnectorConfigSchema,
  matchTraderApiConnectorConfigSchema,
]);

export type ConnectorConfig = z.infer<typeof connectorConfigSchema>;
export type SimulatedConnectorConfig = z.infer<typeof simulatedConnectorConfigSchema>;
export type Mt5WebApiConnectorConfig = z.infer<typeof mt5WebApiConnectorConfigSchema>;
export type Mt4GatewayConnectorConfig = z.infer<typeof mt4GatewayConnectorConfigSchema>;
export type MatchTraderApiConnectorConfig = z.infer<typeof matchTraderApiConnectorConfigSchema>;
