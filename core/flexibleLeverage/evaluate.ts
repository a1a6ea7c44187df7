/**
 * One account through the rules (docs/flexible-leverage.md "Evaluation"): a pure function of the
 * rules, the account as it is now, its group's default leverage and the instant. No memory of
 * earlier evaluations, so an account that crosses a threshold up and back down gets its first
 * leverage back.
 *
 * The first rule that applies wins. A rule applies to an account when it is active, its group
 * mask takes the account's group, the account holds a counted position on one of its symbols
 * (unless its symbol mask is every symbol), and either one of its windows is open (the first open
 * one gives the leverage) or the account's equity or exposure reaches one of its tiers (the
 * highest tier reached: threshold ≤ value). The result is never above the rule's maximum nor the
 * group's default leverage. An account no rule applies to gets its group's default leverage.
 */
import { VOLUME_PER_LOT } from "../trading/volume.ts";
import type { CompiledRule, CompiledRules } from "./compile.ts";
import { tierReason } from "./compile.ts";
import { cappedReason } from "./reason.ts";
import type { LeverageAccount, LeverageDecision } from "./types.ts";

function decided(
  login: string,
  rule: CompiledRule,
  tierIndex: number | null,
  windowIndex: number | null,
  wanted: number,
  reason: string,
  groupLeverage: number,
): LeverageDecision {
  let leverage = wanted;
  let cappedBy: LeverageDecision["cappedBy"] = null;
  if (rule.maxLeverage < leverage) {
    leverage = rule.maxLeverage;
    cappedBy = "rule";
  }
  if (groupLeverage < leverage) {
    leverage = groupLeverage;
    cappedBy = "group";
  }
  return {
    login,
    leverage,
    ruleIndex: rule.index,
    ruleName: rule.name,
    mode: rule.mode,
    tierIndex,
    windowIndex,
    windowKind: windowIndex === null ? null : rule.windows[windowIndex]!.kind,
    cappedBy,
    reason: cappedBy === null ? reason : cappedReason(reason, cappedBy, leverage),
  };
}

/**
 * The leverage `account` should have at instant `at` (epoch ms), with `groupLeverage` its group's
 * default leverage (the cap).
 */
export function evaluateAccount(compiled: CompiledRules, account: LeverageAccount, groupLeverage: number, at: number): LeverageDecision {
  const candidates = compiled.rulesForGroup(account.group);
  const positions = account.positions;
  let open: Int32Array | undefined;
  for (let c = 0; c < candidates.length; c++) {
    const rule = compiled.rules[candidates[c]!]!;
    let holds = rule.allSymbols;
    let exposure = 0;
    if (!holds || rule.mode !== "equity") {
      const inLots = rule.mode === "exposureLots";
      for (let p = 0; p < positions.length; p++) {
        const position = positions[p]!;
        if (!rule.countExisting && position.openedBeforeChange) continue;
        if (!rule.allSymbols && compiled.symbolFlags(position.symbol)[rule.index] !== 1) continue;
        holds = true;
        // Gross exposure: a sell counts as much as a buy.
        exposure += inLots ? Math.round(Math.abs(position.lots) * VOLUME_PER_LOT) : Math.abs(position.notional);
      }
      if (!holds) continue;
    }
    open ??= compiled.openWindowsAt(at);
    const window = open[rule.index]!;
    if (window >= 0) return decided(account.login, rule, null, window, rule.windows[window]!.leverage, rule.windowReasons[window]!, groupLeverage);
    const value = rule.mode === "equity" ? account.equity : exposure;
    let tier = rule.thresholds.length - 1;
    while (tier >= 0 && rule.thresholds[tier]! > value) tier--;
    if (tier < 0) continue;
    return decided(account.login, rule, tier, null, rule.leverages[tier]!, tierReason(rule, tier, account.currency), groupLeverage);
  }
  return {
    login: account.login,
    leverage: groupLeverage,
    ruleIndex: null,
    ruleName: null,
    mode: null,
    tierIndex: null,
    windowIndex: null,
    windowKind: null,
    cappedBy: null,
    reason: compiled.noRuleReason(groupLeverage),
  };
}
