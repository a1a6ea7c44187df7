/**
 * The simulated server's Flexible Leverage plugin at work (docs/flexible-leverage.md "Where the
 * engine runs"): it reads its `Managers` and `Rules.1…N` parameters (core/flexibleLeverage/
 * parameters.ts), compiles them with the rule engine, evaluates the server's accounts and sets the
 * leverage of those whose answer differs, as the real plugin does on a real server. Each change is
 * one transaction: the account's new state on the trade event stream (`accountChanged`) and a
 * journal line naming the account, the leverages from and to, and the engine's reason (the rule
 * and its tier or window).
 *
 * It runs when its settings are saved (so a save shows at once) and on the server's clock (every
 * few seconds, server/connectors/simulated/server.ts), only when something is due, so a server
 * whose accounts already have their leverages records nothing.
 *
 * Windows are read on the server's clock: a fixed offset from UTC (the simulated server's), so the
 * engine is given the server's local time in the UTC zone, exact for any offset.
 */
import { compileRules, type CompiledRules, type LeverageAccount, type LeveragePosition } from "../../../../core/flexibleLeverage/index.ts";
import { decodeSettingsParameters, rulesTextOf } from "../../../../core/flexibleLeverage/parameters.ts";
import { evaluateAccount } from "../../../../core/flexibleLeverage/evaluate.ts";
import { volumeToLots, type TradePlugin } from "../../../../core/trading/index.ts";
import { now, type EngineContext } from "./context.ts";
import { announce } from "./accounts.ts";
import { FLEXIBLE_LEVERAGE } from "./plugins.ts";
import type { SimAccount } from "./state.ts";
import { figuresOf, notionalOf } from "./valuation.ts";

/** One change the plugin made (or would make now). */
export interface LeverageChange {
  login: string;
  from: number;
  to: number;
  ruleName: string | null;
  tierIndex: number | null;
  windowKind: "weekend" | "news" | null;
  reason: string;
  /** The server's instant of the change (ms since the epoch, UTC): with the login, what makes it this change. */
  at: number;
}

export class FlexibleLeverageRunner {
  /**
   * When the rules last changed (the server's time, ms): positions opened before then count only in
   * rules that count existing positions. State, kept with the server.
   */
  rulesChangedAt = 0;
  /** The compiled rules and the text they came from (not state: compiled again after a restore). */
  #compiled: { text: string; rules: CompiledRules | null } | null = null;
  /** Told of the changes each round made (not state: the server's host listens, server/connectors/simulated/server.ts). */
  #listener: ((changes: LeverageChange[]) => void) | null = null;

  /** Who hears of the changes made (one listener; null: nobody). Also called for the rounds replayed after a restore. */
  listen(listener: ((changes: LeverageChange[]) => void) | null): void {
    this.#listener = listener;
  }

  /** The plugin of this flavour, if the server runs it and it is enabled. */
  private plugin(ctx: EngineContext): TradePlugin | undefined {
    const platform = ctx.flavour.platform;
    if (platform === "MatchTrader") return undefined;
    const plugin = ctx.state.plugins.get(FLEXIBLE_LEVERAGE[platform].id);
    return plugin?.enabled ? plugin : undefined;
  }

  /**
   * A plugin's settings are being saved: the rules' change time moves if the rules changed. Rules
   * the engine cannot read are said once, on the save's journal line (the returned remark); the
   * rounds then skip them quietly.
   */
  saved(ctx: EngineContext, before: TradePlugin, after: TradePlugin): string | null {
    const platform = ctx.flavour.platform;
    if (platform === "MatchTrader" || after.id !== FLEXIBLE_LEVERAGE[platform].id) return null;
    if (rulesTextOf(before.parameters) === rulesTextOf(after.parameters)) return null;
    this.rulesChangedAt = now(ctx);
    const decoded = decodeSettingsParameters(after.parameters);
    return decoded.ok ? null : `rules not applied: ${decoded.message}`;
  }

  /** The plugin's rules compiled (once per text); null when it has no active rule or they cannot be read. A read: changes no state. */
  private compiled(plugin: TradePlugin): CompiledRules | null {
    const text = rulesTextOf(plugin.parameters);
    if (this.#compiled?.text === text) return this.#compiled.rules;
    const decoded = decodeSettingsParameters(plugin.parameters);
    // A plugin with no active rule changes nothing (rather than give every account its group's default).
    const rules = decoded.ok && decoded.settings.rules.some((r) => r.active) ? compileRules(decoded.settings, { timeZone: "UTC" }) : null;
    this.#compiled = { text, rules };
    return rules;
  }

  /** The changes the rules call for now (nothing when the plugin is disabled, has no active rule, or its rules cannot be read). */
  due(ctx: EngineContext, logins?: Iterable<string>): LeverageChange[] {
    const plugin = this.plugin(ctx);
    if (!plugin) return [];
    const rules = this.compiled(plugin);
    if (!rules) return [];
    const at = now(ctx) + ctx.timeZoneOffsetMinutes * 60_000;
    const changes: LeverageChange[] = [];
    const accounts = logins ? [...logins].map((l) => ctx.state.accounts.get(l)).filter((a) => a !== undefined) : ctx.state.accounts.values();
    for (const account of accounts) {
      const group = ctx.state.groups.get(account.group);
      if (!group) continue;
      const decision = evaluateAccount(rules, this.accountOf(ctx, account), group.defaultLeverage, at);
      if (decision.leverage !== account.leverage)
        changes.push({
          login: account.login,
          from: account.leverage,
          to: decision.leverage,
          ruleName: decision.ruleName,
          tierIndex: decision.tierIndex,
          windowKind: decision.windowKind,
          reason: decision.reason,
          at: now(ctx),
        });
    }
    return changes;
  }

  /** Applies what is due: each change its own transaction and journal line. */
  run(ctx: EngineContext, logins?: Iterable<string>): LeverageChange[] {
    const changes = this.due(ctx, logins);
    const plugin = this.plugin(ctx);
    for (const change of changes) {
      const account = ctx.state.account(change.login);
      account.leverage = change.to;
      ctx.journal.write(
        now(ctx),
        "ok",
        `'${change.login}': leverage 1:${change.from} → 1:${change.to} by plugin '${plugin?.file ?? "Flexible Leverage"}': ${change.reason}`,
        change.login,
      );
      announce(ctx, account);
    }
    if (changes.length > 0) this.#listener?.(changes.map((c) => ({ ...c })));
    return changes;
  }

  /** What the engine reads of an account: its equity now and its positions (symbol path, lots, notional now). */
  private accountOf(ctx: EngineContext, account: SimAccount): LeverageAccount {
    if (account.positions.size === 0)
      return {
        login: account.login,
        group: account.group,
        currency: account.currency,
        equity: account.balance + account.credit,
        leverage: account.leverage,
        positions: [],
      };
    const equity = figuresOf(ctx, account).equity; // revalues the positions at the current prices
    const positions: LeveragePosition[] = [];
    for (const id of account.positions) {
      const position = ctx.state.position(id);
      const symbol = ctx.state.symbol(position.symbol);
      positions.push({
        symbol: symbol.path ? `${symbol.path}\\${symbol.name}` : symbol.name,
        lots: volumeToLots(position.volume),
        notional: Math.round(notionalOf(ctx, symbol, position.volume, position.currentPrice, account)),
        openedBeforeChange: position.openTime < this.rulesChangedAt,
      });
    }
    return { login: account.login, group: account.group, currency: account.currency, equity, leverage: account.leverage, positions };
  }
}
