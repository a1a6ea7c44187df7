/** The engine's reasons in words: "rule 'Gold', tier ≥ 50,000 USD equity → 1:50". */
import type { LeverageMode } from "./schema.ts";

const numbers = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });

export const leverageText = (leverage: number) => `1:${leverage}`;

/** "tier ≥ 50,000 USD equity", "tier ≥ 2.5 lots exposure", "tier ≥ 1,000,000 EUR exposure". */
export function tierText(mode: LeverageMode, threshold: number, currency: string): string {
  const amount = numbers.format(threshold);
  switch (mode) {
    case "equity":
      return `tier ≥ ${amount} ${currency} equity`;
    case "exposureNotional":
      return `tier ≥ ${amount} ${currency} exposure`;
    case "exposureLots":
      return `tier ≥ ${amount} ${threshold === 1 ? "lot" : "lots"} exposure`;
  }
}

export function ruleReason(ruleName: string, what: string, leverage: number): string {
  return `rule '${ruleName}', ${what} → ${leverageText(leverage)}`;
}

export function cappedReason(reason: string, cappedBy: "rule" | "group", leverage: number): string {
  return `${reason}, capped at the ${cappedBy === "rule" ? "rule's" : "group's"} maximum ${leverageText(leverage)}`;
}

export function noRuleReason(groupLeverage: number): string {
  return `no rule matches: group default ${leverageText(groupLeverage)}`;
}
