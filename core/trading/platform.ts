/**
 * The trading platform types Toolbox connects to, and the connection states every connector
 * reports. Pure types shared by the server and the browser.
 */
/** The one list of platform types: routes, forms, API schemas and the database all use it. */
export const TRADE_PLATFORM_TYPES = ["MT4", "MT5", "MatchTrader"] as const;

export type TradePlatformType = (typeof TRADE_PLATFORM_TYPES)[number];

export const TRADE_PLATFORM_LABELS: Record<TradePlatformType, string> = {
  MT4: "MetaTrader 4",
  MT5: "MetaTrader 5",
  MatchTrader: "Match-Trader",
};

/**
 * - `disconnected`: never connected, or closed on purpose;
 * - `connecting`: the first attempt is running;
 * - `connected`: requests and the live stream work;
 * - `reconnecting`: the link was lost after it had worked; live streams stay open and resume;
 * - `failed`: the last attempt failed (see the connector's `lastError`).
 */
export type ConnectionState = "disconnected" | "connecting" | "connected" | "reconnecting" | "failed";

/** Milliseconds since the Unix epoch, UTC. Platforms that count in server-local seconds are converted at the connector. */
export type Timestamp = number;

/** `Omit` that keeps a union a union (plain `Omit` collapses it to the common fields). */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
