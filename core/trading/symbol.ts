import type { Volume } from "./volume.ts";
import type { Timestamp } from "./platform.ts";

export type SymbolClass = "forex" | "metal" | "index" | "crypto";

/** A trading window in server time: weekday 0 = Sunday, minutes from midnight, `to` exclusive. */
export interface Session {
  day: number;
  from: number;
  to: number;
}

/** Named TradeSymbol because `Symbol` is a JavaScript global. */
export interface TradeSymbol {
  name: string;
  description: string;
  class: SymbolClass;
  /** The symbol group path as MetaTrader shows it, e.g. "Forex\\Majors". */
  path: string;
  digits: number;
  contractSize: number;
  baseCurrency: string;
  /** Currency profit is computed in before conversion to the account currency. */
  profitCurrency: string;
  executionMode: "request" | "instant" | "market";
  tradeMode: "full" | "closeOnly" | "disabled";
  /** Typical spread in points; the feed widens and narrows around it. */
  spread: number;
  /** Where the spread sits around the market's mid, in points: positive moves bid and ask up by half of it, negative down (0: centred). */
  spreadBalance: number;
  stopsLevel: number;
  freezeLevel: number;
  swapLong: number;
  swapShort: number;
  volumeMin: Volume;
  volumeMax: Volume;
  volumeStep: Volume;
  /** Caps the account's leverage for this symbol (crypto, indices); null for none. */
  maxLeverage: number | null;
  /**
   * MetaTrader's margin figures for one lot, in the margin currency: initial, maintenance, and for
   * hedged (opposite) positions; 0: computed from the contract size and the leverage (what the
   * simulated servers always do). Match-Trader has none (0).
   */
  marginInitial: number;
  marginMaintenance: number;
  marginHedged: number;
  sessions: Session[];
}

export interface Quote {
  symbol: string;
  bid: number;
  ask: number;
  time: Timestamp;
}

const MINUTES_PER_DAY = 24 * 60;

/** Whether the symbol trades at a moment given in server-local milliseconds. */
export function isSessionOpen(sessions: readonly Session[], serverLocalTime: Timestamp): boolean {
  const date = new Date(serverLocalTime);
  const day = date.getUTCDay();
  const minute = date.getUTCHours() * 60 + date.getUTCMinutes();
  return sessions.some((s) => s.day === day && minute >= s.from && minute < s.to);
}

/** Where a symbol's market is: trading, outside its weekly sessions, or shut for a holiday. */
export type SessionState = "open" | "closed" | "holiday";

/**
 * The session state at a moment in server-local milliseconds. `holidays` are server-local dates
 * (YYYY-MM-DD) on which the market does not open whatever its weekly sessions say.
 */
export function sessionState(sessions: readonly Session[], serverLocalTime: Timestamp, holidays: readonly string[] = []): SessionState {
  if (holidays.length > 0 && holidays.includes(new Date(serverLocalTime).toISOString().slice(0, 10))) return "holiday";
  return isSessionOpen(sessions, serverLocalTime) ? "open" : "closed";
}

/** The same window on each of the given weekdays. */
export function dailySessions(days: readonly number[], from = 0, to = MINUTES_PER_DAY): Session[] {
  return days.map((day) => ({ day, from, to }));
}
