/** What the engine reads of an account and what it answers (docs/flexible-leverage.md). */
import type { Money } from "../trading/money.ts";
import type { LeverageMode } from "./schema.ts";

export interface LeveragePosition {
  /** The symbol's name, or its MT5 path ("Forex\Majors\EURUSD"): see ./masks.ts. */
  symbol: string;
  /** Volume in lots (both sides count: exposure is gross). */
  lots: number;
  /** The position's notional value in the account's currency, minor units (cents). */
  notional: Money;
  /** Opened before the rules were last changed: counts only in rules that count existing positions. */
  openedBeforeChange: boolean;
}

export interface LeverageAccount {
  login: string;
  group: string;
  currency: string;
  /** Minor units of `currency`. */
  equity: Money;
  /** The leverage the account has now (1:100 → 100). */
  leverage: number;
  positions: readonly LeveragePosition[];
}

/** Which rule, tier or window gave an account its leverage, and why in words. */
export interface LeverageDecision {
  login: string;
  /** The leverage the account should have (1:50 → 50). */
  leverage: number;
  /** Index of the rule in the settings' list; null when no rule applies. */
  ruleIndex: number | null;
  ruleName: string | null;
  mode: LeverageMode | null;
  /** Index of the tier in the rule's ladder; null for a window or no rule. */
  tierIndex: number | null;
  /** Index of the open window in the rule's windows; null when a tier (or no rule) decided. */
  windowIndex: number | null;
  windowKind: "weekend" | "news" | null;
  /** What held the leverage below the tier's or window's: the rule's maximum or the group's. */
  cappedBy: "rule" | "group" | null;
  /** "rule 'Gold', tier ≥ 50,000 USD equity → 1:50". */
  reason: string;
}
