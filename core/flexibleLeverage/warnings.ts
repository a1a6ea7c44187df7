/**
 * Warnings, not errors (docs/flexible-leverage.md "Validation"): settings that are valid but
 * probably not what was meant, given the server's group and symbol names. A mask that matches
 * nothing (a typo, or a group not created yet), a leverage above the rule's own maximum (it is
 * capped), a news window already over.
 */
import { compileGroupMask, compileSymbolMask, includePatterns, symbolPatternMatches } from "./masks.ts";
import { leverageText } from "./reason.ts";
import type { FlexibleLeverageSettings } from "./schema.ts";
import { compileWindow } from "./windows.ts";

export interface RuleWarning {
  /** Index of the rule in the settings' list. */
  ruleIndex: number;
  /** Where in the settings, as in a validation issue: ["rules", 0, "groups"]. */
  path: (string | number)[];
  message: string;
}

export interface WarningContext {
  /** The server's group names. */
  groups: readonly string[];
  /** The server's symbols, by name or MT5 path. */
  symbols: readonly string[];
  /** Now (epoch ms) and the server's time zone: to warn about news windows already over. */
  at?: number;
  timeZone?: string;
}

export function ruleWarnings(settings: FlexibleLeverageSettings, context: WarningContext): RuleWarning[] {
  const warnings: RuleWarning[] = [];
  settings.rules.forEach((rule, r) => {
    const named = `Rule '${rule.name}'`;
    const warn = (path: (string | number)[], message: string) => warnings.push({ ruleIndex: r, path: ["rules", r, ...path], message });

    const groupPatterns = includePatterns(rule.groups);
    for (const pattern of groupPatterns) {
      if (!context.groups.some((g) => compileGroupMask(pattern)(g))) warn(["groups"], `${named}: the group mask '${pattern}' matches no group on the server`);
    }
    const matchesGroup = compileGroupMask(rule.groups);
    if (!context.groups.some(matchesGroup) && groupPatterns.every((p) => context.groups.some((g) => compileGroupMask(p)(g)))) {
      warn(["groups"], `${named}: its groups '${rule.groups}' leave no group on the server once the exclusions are applied`);
    }

    const symbolPatterns = includePatterns(rule.symbols);
    for (const pattern of symbolPatterns) {
      if (!context.symbols.some((s) => symbolPatternMatches(pattern.toLowerCase(), s)))
        warn(["symbols"], `${named}: the symbol mask '${pattern}' matches no symbol on the server`);
    }
    const matchesSymbol = compileSymbolMask(rule.symbols);
    if (!context.symbols.some(matchesSymbol) && symbolPatterns.every((p) => context.symbols.some((s) => symbolPatternMatches(p.toLowerCase(), s)))) {
      warn(["symbols"], `${named}: its symbols '${rule.symbols}' leave no symbol on the server once the exclusions are applied`);
    }

    if (rule.maxLeverage !== null) {
      const max = rule.maxLeverage;
      rule.tiers.forEach((tier, t) => {
        if (tier.leverage > max)
          warn(
            ["tiers", t, "leverage"],
            `${named}, tier ${t + 1}: ${leverageText(tier.leverage)} is above the rule's maximum ${leverageText(max)}, so it gives ${leverageText(max)}`,
          );
      });
      rule.windows.forEach((window, w) => {
        if (window.leverage > max)
          warn(
            ["windows", w, "leverage"],
            `${named}, window ${w + 1}: ${leverageText(window.leverage)} is above the rule's maximum ${leverageText(max)}, so it gives ${leverageText(max)}`,
          );
      });
    }

    const { at, timeZone } = context;
    if (at !== undefined && timeZone !== undefined) {
      rule.windows.forEach((window, w) => {
        if (window.kind !== "news") return;
        const compiled = compileWindow(window, timeZone);
        if (compiled.kind === "news" && compiled.end <= at)
          warn(["windows", w], `${named}, window ${w + 1}: the news window of ${window.date} ${window.time} is over`);
      });
    }
  });
  return warnings;
}
