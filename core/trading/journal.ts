import type { Timestamp } from "./platform.ts";

/** The levels MetaTrader's journal uses. */
export type JournalLevel = "ok" | "trade" | "login" | "warning" | "error" | "attention";

export const JOURNAL_LEVELS: readonly JournalLevel[] = ["ok", "trade", "login", "warning", "error", "attention"];

export interface JournalEntry {
  id: string;
  time: Timestamp;
  level: JournalLevel;
  sourceIp: string | null;
  /** The account the line is about, when there is one. */
  login: string | null;
  message: string;
}

export interface JournalFilter {
  levels?: readonly JournalLevel[];
  login?: string;
  /** Case-insensitive substring of the message. */
  text?: string;
}

export function matchesJournalFilter(entry: JournalEntry, filter: JournalFilter): boolean {
  if (filter.levels && filter.levels.length > 0 && !filter.levels.includes(entry.level)) return false;
  if (filter.login !== undefined && entry.login !== filter.login) return false;
  if (filter.text && !entry.message.toLowerCase().includes(filter.text.toLowerCase())) return false;
  return true;
}
