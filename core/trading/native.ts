/**
 * The platform's own identifiers, kept next to every normalized record so screens can show what
 * a dealer sees in the platform's terminal (an MT4 ticket, an MT5 deal and position, a
 * Match-Trader UUID). Toolbox logic uses the normalized string `id`s; these are for display and
 * for support conversations with the platform's own tools.
 */
export type NativeAccountRef =
  { platform: "MT4"; login: number } | { platform: "MT5"; login: number } | { platform: "MatchTrader"; accountId: string; offerId: string };

export type NativePositionRef = { platform: "MT4"; ticket: number } | { platform: "MT5"; position: number } | { platform: "MatchTrader"; positionId: string };

/** A pending order: an MT4 ticket (the position keeps it when the order fills), an MT5 order ticket (the position takes it as its id), a Match-Trader order UUID. */
export type NativeOrderRef = { platform: "MT4"; ticket: number } | { platform: "MT5"; order: number } | { platform: "MatchTrader"; orderId: string };

/**
 * MT4 has no deals, only tickets: a trade's opening and closing are both its ticket, told apart
 * by `entry`. MT5 deals have their own ids. Match-Trader has positions, their closings and ledgers.
 */
export type NativeDealRef =
  | { platform: "MT4"; ticket: number; cmd: number; entry: "in" | "out" | null }
  | { platform: "MT5"; deal: number; order: number; position: number | null }
  | { platform: "MatchTrader"; positionId: string; closeId: string | null }
  | { platform: "MatchTrader"; ledgerId: string };

/** Match-Trader groups live inside offers; MetaTrader groups are known by name alone. */
export type NativeGroupRef = { platform: "MT4" | "MT5" } | { platform: "MatchTrader"; offerId: string; branch: string };
