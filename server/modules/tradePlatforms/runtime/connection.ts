import { SIMULATED_ACCOUNTS_DEFAULT, SIMULATED_TRADE_RATE_DEFAULT } from "../../../../core/schemas/platform.ts";
/**
 * A platform's connection in its three shapes: as entered (with the secret), as stored (without
 * it; the secret goes to the cipher), and as shown (with `hasSecret` only). Plus which kinds a
 * platform type may use, and the connector configuration the runtime builds from a stored one.
 */
import { TRADE_PLATFORM_LABELS, type TradePlatformType } from "../../../../core/trading/index.ts";
import type { ConnectorConfig } from "../../../connectors/config.ts";
import type { ConnectionInput, ConnectionKind, PublicConnection, StoredConnection } from "../../../../core/schemas/platform.ts";
import { offsetMinutesAt } from "./timeZone.ts";

export type { ConnectionInput, ConnectionKind, PublicConnection, StoredConnection };

export const SIMULATED_DEFAULTS = { accounts: SIMULATED_ACCOUNTS_DEFAULT, tradeRate: SIMULATED_TRADE_RATE_DEFAULT } as const;

/** The real (non-simulated) kind each platform type connects through. */
export const REAL_KIND_OF: Record<TradePlatformType, Exclude<ConnectionKind, "simulated">> = {
  MT4: "mt4Gateway",
  MT5: "mt5WebApi",
  MatchTrader: "matchTraderApi",
};

const KIND_LABELS: Record<ConnectionKind, string> = {
  simulated: "a simulated server",
  mt4Gateway: "the MT4 manager gateway (mt4Gateway)",
  mt5WebApi: "the MT5 Web API (mt5WebApi)",
  matchTraderApi: "the Match-Trader Broker API (matchTraderApi)",
};

/** Why this type cannot use this kind, in words; null when it can. */
export function kindMismatch(type: TradePlatformType, kind: ConnectionKind): string | null {
  if (kind === "simulated" || REAL_KIND_OF[type] === kind) return null;
  return `A ${TRADE_PLATFORM_LABELS[type]} platform connects through ${KIND_LABELS[REAL_KIND_OF[type]]} or a simulated server, not ${KIND_LABELS[kind]}.`;
}

/** Real protocol connectors come in a later issue; until then this is the honest answer. */
export function realKindUnavailable(type: TradePlatformType): string {
  return `Connecting to real ${TRADE_PLATFORM_LABELS[type]} servers is not available yet; use a simulated server to try Toolbox.`;
}

/** The real kinds whose connectors exist: all three (MT5 Web API, MT4 gateway, Match-Trader Broker API). */
export function isRealKindAvailable(kind: Exclude<ConnectionKind, "simulated">): boolean {
  return kind === "mt5WebApi" || kind === "mt4Gateway" || kind === "matchTraderApi";
}

/**
 * Splits an entered connection into what is stored in the clear and the secret.
 * `secret`: the new password / API key, `null` for none, `undefined` for "keep the stored one"
 * (only meaningful when the kind did not change; the caller decides).
 */
export function splitConnection(
  input: ConnectionInput,
  defaults: { seed: () => number; previous?: StoredConnection },
): { stored: StoredConnection; secret: string | null | undefined } {
  switch (input.kind) {
    case "simulated": {
      const previous = defaults.previous?.kind === "simulated" ? defaults.previous : undefined;
      const stored: StoredConnection = {
        kind: "simulated",
        accounts: input.accounts ?? previous?.accounts ?? SIMULATED_DEFAULTS.accounts,
        tradeRate: input.tradeRate ?? previous?.tradeRate ?? SIMULATED_DEFAULTS.tradeRate,
        seed: input.seed ?? previous?.seed ?? defaults.seed(),
        ...(input.login ? { login: input.login } : {}),
      };
      // A simulated server without a manager login uses its built-in one: no secret to keep.
      return { stored, secret: input.login ? input.password : null };
    }
    case "mt5WebApi":
      return {
        stored: { kind: input.kind, address: input.address, login: input.login, ...(input.caCertificate ? { caCertificate: input.caCertificate } : {}) },
        secret: input.password,
      };
    case "mt4Gateway":
      return {
        stored: { kind: input.kind, address: input.address, login: input.login, ...(input.caCertificate ? { caCertificate: input.caCertificate } : {}) },
        secret: input.password,
      };
    case "matchTraderApi":
      return {
        stored: {
          kind: input.kind,
          apiUrl: input.apiUrl,
          ...(input.grpcAddress ? { grpcAddress: input.grpcAddress } : {}),
          ...(input.quotesGroup ? { quotesGroup: input.quotesGroup } : {}),
          ...(input.caCertificate ? { caCertificate: input.caCertificate } : {}),
        },
        secret: input.apiKey,
      };
  }
}

/** Whether the connection needs a secret to be complete. */
export function needsSecret(stored: StoredConnection): boolean {
  return stored.kind !== "simulated" || stored.login !== undefined;
}

export function publicConnection(stored: StoredConnection, hasSecret: boolean): PublicConnection {
  switch (stored.kind) {
    case "simulated":
      return {
        kind: "simulated",
        accounts: stored.accounts,
        tradeRate: stored.tradeRate,
        seed: stored.seed,
        ...(stored.login !== undefined ? { login: stored.login } : {}),
        hasSecret,
      };
    case "mt5WebApi":
      return {
        kind: stored.kind,
        address: stored.address,
        login: stored.login,
        ...(stored.caCertificate ? { caCertificate: stored.caCertificate } : {}),
        hasSecret,
      };
    case "mt4Gateway":
      return {
        kind: stored.kind,
        address: stored.address,
        login: stored.login,
        ...(stored.caCertificate ? { caCertificate: stored.caCertificate } : {}),
        hasSecret,
      };
    case "matchTraderApi":
      return {
        kind: stored.kind,
        apiUrl: stored.apiUrl,
        ...(stored.grpcAddress ? { grpcAddress: stored.grpcAddress } : {}),
        ...(stored.quotesGroup ? { quotesGroup: stored.quotesGroup } : {}),
        ...(stored.caCertificate ? { caCertificate: stored.caCertificate } : {}),
        hasSecret,
      };
  }
}

export interface ConnectablePlatform {
  id: string;
  type: TradePlatformType;
  timeZone: string;
  connection: StoredConnection;
}

/** Options of the in-process simulated server behind a platform; a change restarts that server. */
export function simulatedServerOptions(platform: ConnectablePlatform & { connection: { kind: "simulated" } }) {
  return {
    seed: platform.connection.seed,
    accounts: platform.connection.accounts,
    tradeRate: platform.connection.tradeRate,
    // The simulated server keeps the platform's zone; its offset is fixed when it starts.
    timeZoneOffsetMinutes: offsetMinutesAt(platform.timeZone),
  };
}

/**
 * The connector configuration of a platform, or why there is none (a real kind whose connector
 * does not exist yet). `secret` is the decrypted password / API key, if any.
 */
export function connectorConfigOf(platform: ConnectablePlatform, secret: string | null): { config: ConnectorConfig } | { unavailable: string } {
  const connection = platform.connection;
  if (connection.kind === "mt5WebApi") {
    if (secret === null) return { unavailable: "Enter the manager password for this connection." };
    return {
      config: {
        kind: "mt5WebApi",
        address: connection.address,
        credentials: { login: connection.login, password: secret },
        ...(connection.caCertificate ? { caCertificate: connection.caCertificate } : {}),
      },
    };
  }
  if (connection.kind === "mt4Gateway") {
    if (secret === null) return { unavailable: "Enter the manager password for this connection." };
    return {
      config: {
        kind: "mt4Gateway",
        address: connection.address,
        credentials: { login: connection.login, password: secret },
        ...(connection.caCertificate ? { caCertificate: connection.caCertificate } : {}),
      },
    };
  }
  if (connection.kind === "matchTraderApi") {
    if (secret === null) return { unavailable: "Enter the API key for this connection." };
    return {
      config: {
        kind: "matchTraderApi",
        apiUrl: connection.apiUrl,
        apiKey: secret,
        ...(connection.grpcAddress ? { grpcAddress: connection.grpcAddress } : {}),
        ...(connection.quotesGroup ? { quotesGroup: connection.quotesGroup } : {}),
        ...(connection.caCertificate ? { caCertificate: connection.caCertificate } : {}),
      },
    };
  }
  if (connection.kind !== "simulated") return { unavailable: realKindUnavailable(platform.type) };
  return {
    config: {
      kind: "simulated",
      platform: platform.type,
      serverKey: platform.id,
      server: simulatedServerOptions({ ...platform, connection }),
      ...(connection.login !== undefined ? { credentials: { login: connection.login, password: secret ?? "" } } : {}),
    },
  };
}
