import type { Money } from "./money.ts";
import type { NativeGroupRef } from "./native.ts";

/** Margin call and stop-out levels are a percentage of margin, or an amount of equity. */
export type MarginLevelMode = "percent" | "money";

export interface Group {
  name: string;
  currency: string;
  defaultLeverage: number;
  marginLevelMode: MarginLevelMode;
  /** Percent, or minor units of `currency` in money mode. */
  marginCall: number;
  stopOut: number;
  /** Hedging (several positions per symbol, both sides) or netting (one position per symbol). */
  marginMode: "hedging" | "netting";
  hedgingProhibited: boolean;
  fifoClose: boolean;
  /** 0 means no limit. */
  maxPositions: number;
  /** Symbol masks the group may trade ("Forex\\*", "!Crypto\\*"), see mask.ts. */
  symbols: string;
  /** Round-turn commission per lot, charged when a position opens. */
  commissionPerLot: Money;
  native: NativeGroupRef;
}
