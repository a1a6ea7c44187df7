/**
 * Flexible Leverage's rule engine (docs/flexible-leverage.md): pure, the same code inside a
 * simulated server's plugin and in Toolbox for a real server without the plugin.
 *
 *   const compiled = compileRules(settings, { timeZone: "Europe/Nicosia" });
 *   evaluateAccount(compiled, account, group.defaultLeverage, Date.now());
 *   preview(compiled, accounts, { at: Date.now(), groupLeverage });
 */
export {
  FlexibleLeverageSettingsSchema,
  RuleSchema,
  TierSchema,
  TimeWindowSchema,
  WeekendWindowSchema,
  NewsWindowSchema,
  WeekdayTimeSchema,
  LEVERAGE_MODES,
  WEEK_DAYS,
  MAX_RULES,
  MAX_TIERS,
  MAX_WINDOWS,
  MAX_MANAGERS,
  parseManagersParameter,
  formatManagersParameter,
  type FlexibleLeverageSettings,
  type FlexibleLeverageSettingsInput,
  type Rule,
  type RuleInput,
  type Tier,
  type TimeWindow,
  type WeekendWindow,
  type NewsWindow,
  type WeekdayTime,
  type WeekDay,
  type LeverageMode,
} from "./schema.ts";
export type { LeverageAccount, LeveragePosition, LeverageDecision } from "./types.ts";
export { compileRules, type CompiledRules, type CompiledRule } from "./compile.ts";
export { evaluateAccount } from "./evaluate.ts";
export { preview, type PreviewOptions, type PreviewResult, type PreviewRow, type PreviewCounts, type PreviewRuleCount } from "./preview.ts";
export { ruleWarnings, type RuleWarning, type WarningContext } from "./warnings.ts";
export { leverageText } from "./reason.ts";
