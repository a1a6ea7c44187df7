/**
 * The editor's live preview (docs/flexible-leverage.md "Preview"): every account of a server
 * through the rules, each with its rule, tier or window, leverage and reason, whether it would
 * change, and the counts. "What if" evaluates at another instant (a weekend) and/or with another
 * equity, for every account or for some logins.
 */
import type { Money } from "../trading/money.ts";
import type { CompiledRules } from "./compile.ts";
import { evaluateAccount } from "./evaluate.ts";
import { leverageText } from "./reason.ts";
import type { LeverageAccount, LeverageDecision } from "./types.ts";

export interface PreviewOptions {
  /** Now (epoch ms). */
  at: number;
  /** Group name → its default leverage (the cap). An account whose group is not here is left as it is. */
  groupLeverage: ReadonlyMap<string, number> | ((group: string) => number | undefined);
  whatIf?: {
    /** Evaluate at this instant instead of `at`. */
    at?: number;
    /** Every account's equity (minor units), or some accounts' by login. */
    equity?: Money | ReadonlyMap<string, Money>;
  };
}

export interface PreviewRow extends LeverageDecision {
  group: string;
  currency: string;
  /** The equity evaluated (the what-if one when given). */
  equity: Money;
  currentLeverage: number;
  /** The leverage would change (it differs from the current one). */
  changed: boolean;
}

export interface PreviewRuleCount {
  ruleIndex: number;
  ruleName: string;
  accounts: number;
  changed: number;
}

export interface PreviewCounts {
  accounts: number;
  /** Accounts a rule applies to. */
  matched: number;
  /** Accounts no rule applies to (they get their group's default leverage). */
  unmatched: number;
  /** Accounts whose group is not known (left as they are). */
  unknownGroup: number;
  changed: number;
  raised: number;
  lowered: number;
  /** Per rule of the settings, in their order (inactive rules count 0). */
  byRule: PreviewRuleCount[];
}

export interface PreviewResult {
  /** The instant evaluated (the what-if one when given). */
  at: number;
  whatIf: boolean;
  rows: PreviewRow[];
  counts: PreviewCounts;
}

export function preview(compiled: CompiledRules, accounts: readonly LeverageAccount[], options: PreviewOptions): PreviewResult {
  const at = options.whatIf?.at ?? options.at;
  const equity = options.whatIf?.equity;
  const groupOf = options.groupLeverage;
  const leverageOf = typeof groupOf === "function" ? groupOf : (group: string) => groupOf.get(group);
  const byRule: PreviewRuleCount[] = compiled.rules.map((r) => ({ ruleIndex: r.index, ruleName: r.name, accounts: 0, changed: 0 }));
  const counts: PreviewCounts = { accounts: accounts.length, matched: 0, unmatched: 0, unknownGroup: 0, changed: 0, raised: 0, lowered: 0, byRule };
  const rows = new Array<PreviewRow>(accounts.length);

  for (let i = 0; i < accounts.length; i++) {
    let account = accounts[i]!;
    if (equity !== undefined) {
      const value = typeof equity === "number" ? equity : equity.get(account.login);
      if (value !== undefined) account = { ...account, equity: value };
    }
    const groupLeverage = leverageOf(account.group);
    if (groupLeverage === undefined) {
      counts.unknownGroup++;
      rows[i] = {
        login: account.login,
        leverage: account.leverage,
        ruleIndex: null,
        ruleName: null,
        mode: null,
        tierIndex: null,
        windowIndex: null,
        windowKind: null,
        cappedBy: null,
        reason: `group '${account.group}' is not on the server: leverage stays ${leverageText(account.leverage)}`,
        group: account.group,
        currency: account.currency,
        equity: account.equity,
        currentLeverage: account.leverage,
        changed: false,
      };
      continue;
    }
    const decision = evaluateAccount(compiled, account, groupLeverage, at);
    const changed = decision.leverage !== account.leverage;
    if (decision.ruleIndex === null) counts.unmatched++;
    else {
      counts.matched++;
      const rule = byRule[decision.ruleIndex]!;
      rule.accounts++;
      if (changed) rule.changed++;
    }
    if (changed) {
      counts.changed++;
      if (decision.leverage > account.leverage) counts.raised++;
      else counts.lowered++;
    }
    rows[i] = {
      login: decision.login,
      leverage: decision.leverage,
      ruleIndex: decision.ruleIndex,
      ruleName: decision.ruleName,
      mode: decision.mode,
      tierIndex: decision.tierIndex,
      windowIndex: decision.windowIndex,
      windowKind: decision.windowKind,
      cappedBy: decision.cappedBy,
      reason: decision.reason,
      group: account.group,
      currency: account.currency,
      equity: account.equity,
      currentLeverage: account.leverage,
      changed,
    };
  }
  return { at, whatIf: options.whatIf?.at !== undefined || equity !== undefined, rows, counts };
}
