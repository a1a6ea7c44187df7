/**
 * Toolbox running the Flexible Leverage rules for a server without the plugin
 * (docs/flexible-leverage.md "Where the engine runs", decision XXXX): the rules Toolbox keeps for
 * the platform (`flexible_leverage_rules`, the plugin's own parameter layout) are evaluated with the
 * same engine as the plugin (`evaluateAccount`, core/flexibleLeverage) over the server's accounts
 * read through its connector, and each change is applied with the connector's `setLeverage` (the
 * Manager API's account update, with the server's own journal line).
 *
 *  - **One node at a time**: a lease per platform on the rules' row (holder, epoch, expiry on the
 *    database's clock), taken or renewed at every round; only the holder evaluates and applies.
 *  - **Exactly once per change**: the change is first recorded as an intent (`leverage_changes`,
 *    status `pending`, key `toolbox:{login}:{n}`, n the account's n-th change by Toolbox, unique per
 *    platform), then sent, then settled (`applied`; a refusal `failed`, with the server's words).
 *    Two nodes deciding the same change write the same key: one insert lands, only that one sends.
 *    An account with a pending intent gets no new one: the next round settles it first (reads the
 *    account: already at the target, it is settled without sending; else it is sent again, a
 *    setting of the same leverage, so a retry never applies a change twice).
 *  - **Never beside the plugin**: a round does nothing while the server runs an enabled Flexible
 *    Leverage plugin of its own (that plugin runs the server's rules).
 *  - `leverageChanged` is published by the node whose intent landed, once the change is applied.
 */
import type { FastifyInstance } from "fastify";
import { compileRules, evaluateAccount, type LeverageAccount, type LeveragePosition } from "../../../core/flexibleLeverage/index.ts";
import { decodeSettingsParameters } from "../../../core/flexibleLeverage/parameters.ts";
import { flexibleLeverageOf, volumeToLots, type Account, type Quote, type TradeSymbol } from "../../../core/trading/index.ts";
import type { AppContext } from "../../context.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import { ConnectorError } from "../../connectors/errors.ts";
import type { Db } from "../../db/client.ts";
import type { DomainEvent } from "../../events/types.ts";
import { changedEvent } from "./changes.ts";
import {
  insertChange,
  pendingIntents,
  platformById,
  platformsWithRules,
  runnerChangeCounts,
  settleIntent,
  type LeverageChangeRow,
} from "./changesRepository.ts";
import { findRules, releaseLeases, takeLease } from "./repository.ts";
import { engineClockOf, symbolKey } from "./service.ts";

export interface RunnerDeps {
  db: Db;
  nodeId: string;
  /** The lease's time to live; taken or renewed at every round. */
  leaseTtlMs: number;
  connectorFor(organizationId: string, platformId: string): Promise<TradePlatformConnector>;
  publish(event: DomainEvent, id: string): Promise<void>;
  warn(err: unknown, message: string): void;
  /** A line of the runner's journal (the application log): one per change sent. */
  journal(line: string, fields: Record<string, unknown>): void;
  intervalMs?: number;
}

// ── The rounds ───────────────────────────────────────────────────────────────────────────────

/** What one round of one platform did. */
export interface RoundResult {
  platformId: string;
  /** Why nothing was evaluated (another node's lease, the server's own plugin, no active rule…); null when evaluated. */
  skipped: string | null;
  /** The changes this node recorded and sent (or settled) in this round. */
  applied: LeverageChangeRow[];
  failed: LeverageChangeRow[];
}

/** Currency conversion with the server's quotes (mid), as directly quoted pairs. */
function rateOf(quotes: readonly Quote[]) {
  const mid = new Map(quotes.map((q) => [q.symbol, (q.bid + q.ask) / 2]));
  return (from: string, to: string): number | undefined => {
    if (from === to) return 1;
    const direct = mid.get(`${from}${to}`);
    if (direct) return direct;
    const inverse = mid.get(`${to}${from}`);
    return inverse ? 1 / inverse : undefined;
  };
}

async function allAccounts(connector: TradePlatformConnector): Promise<Account[]> {
  const accounts: Account[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 10_000; page++) {
    const result = await connector.listAccounts({ cursor, limit: 1000 });
    accounts.push(...result.items);
    cursor = result.nextCursor;
    if (cursor === null) break;
  }
  return accounts;
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));
/** A refusal of the server (it will refuse again): the change fails; anything else (no connection) is tried again. */
const isRefusal = (err: unknown) => err instanceof ConnectorError && !err.retryable;

export class FlexibleLeverageRunner {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<void> | null = null;
  private readonly rounds = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: RunnerDeps) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.runTick(), this.deps.intervalMs ?? 5_000);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    await releaseLeases(this.deps.db, this.deps.nodeId).catch(() => {});
  }

  /** The rules of a platform changed (or its clock moved): a round now rather than at the next tick. */
  refresh(): void {
    if (this.timer) void this.runTick();
  }

  private runTick(): Promise<void> {
    this.running ??= this.tick()
      .then(() => undefined)
      .catch((err: unknown) => this.deps.warn(err, "flexible leverage: a runner round failed"))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  /** One round over every platform whose rules Toolbox keeps (tests call it). */
  async tick(): Promise<RoundResult[]> {
    const results: RoundResult[] = [];
    for (const platformId of await platformsWithRules(this.deps.db)) {
      try {
        results.push(await this.round(platformId));
      } catch (err) {
        this.deps.warn(err, `flexible leverage: the runner's round of platform ${platformId} failed`);
        results.push({ platformId, skipped: errorText(err), applied: [], failed: [] });
      }
    }
    return results;
  }

  /**
   * One platform's round: lease, the server's own plugin, pending intents settled, then the
   * accounts evaluated and changed. Rounds of one platform on this node run one after the other
   * (a round reading the accounts while another applies would decide the same change again).
   */
  round(platformId: string): Promise<RoundResult> {
    const previous = this.rounds.get(platformId) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(() => this.roundNow(platformId));
    const settled = next.catch(() => {});
    this.rounds.set(platformId, settled);
    void settled.then(() => {
      if (this.rounds.get(platformId) === settled) this.rounds.delete(platformId);
    });
    return next;
  }

  private async roundNow(platformId: string): Promise<RoundResult> {
    const { db, nodeId, leaseTtlMs } = this.deps;
    const result: RoundResult = { platformId, skipped: null, applied: [], failed: [] };
    if ((await takeLease(db, platformId, nodeId, leaseTtlMs)) === null) return { ...result, skipped: "another node runs this platform's rules" };
    const rules = await findRules(db, platformId);
    const platform = await platformById(db, platformId);
    if (!rules || !platform) return { ...result, skipped: "no rules" };
    if (!platform.enable) return { ...result, skipped: "the platform is disabled" };
    const connector = await this.deps.connectorFor(platform.organizationId, platformId);
    if (connector.platform === "MatchTrader") return { ...result, skipped: "Match-Trader has no Flexible Leverage" };
    const own = (await connector.listPlugins()).find((p) => flexibleLeverageOf(p.id)?.platform === connector.platform && p.enabled);
    if (own) return { ...result, skipped: `the server's own plugin "${own.id}" runs its rules` };

    // Intents left pending (a crash, a lost connection) are settled before anything new is decided.
    const pending = await pendingIntents(db, platformId);
    const unsettled = new Set<string>();
    for (const intent of pending) {
      const settled = await this.send(connector, intent, true);
      if (settled?.status === "applied") result.applied.push(settled);
      else if (settled?.status === "failed") result.failed.push(settled);
      else unsettled.add(intent.login);
    }

    const decoded = decodeSettingsParameters(rules.parameters);
    if (!decoded.ok) return { ...result, skipped: `the rules cannot be read: ${decoded.message}` };
    if (!decoded.settings.rules.some((r) => r.active)) return { ...result, skipped: "no active rule" };
    const time = await connector.serverTime();
    const clock = engineClockOf(platform, time);
    const compiled = compileRules(decoded.settings, { timeZone: clock.timeZone });
    const needsNotional = decoded.settings.rules.some((r) => r.active && r.mode === "exposureNotional");
    const [accounts, positions, groups, symbols, quotes] = await Promise.all([
      allAccounts(connector),
      connector.openPositions(),
      connector.listGroups(),
      connector.listSymbols(),
      needsNotional ? connector.getQuotes() : Promise.resolve([] as Quote[]),
    ]);
    const groupLeverage = new Map(groups.map((g) => [g.name, g.defaultLeverage]));
    const bySymbol = new Map<string, TradeSymbol>(symbols.map((s) => [s.name, s]));
    const rate = rateOf(quotes);
    const currencyOf = new Map(accounts.map((a) => [a.login, a.currency]));
    const rulesChangedAt = rules.rulesChangedAt.getTime();
    const byLogin = new Map<string, LeveragePosition[]>();
    for (const p of positions) {
      const symbol = bySymbol.get(p.symbol);
      const lots = volumeToLots(p.volume);
      let notional = 0;
      if (needsNotional && symbol) {
        const currency = currencyOf.get(p.login);
        const r = currency === undefined ? undefined : rate(symbol.profitCurrency, currency);
        if (r !== undefined) notional = Math.round(lots * symbol.contractSize * p.currentPrice * r * 100);
      }
      const list = byLogin.get(p.login) ?? [];
      list.push({ symbol: symbol ? symbolKey(symbol) : p.symbol, lots, notional, openedBeforeChange: p.openTime < rulesChangedAt });
      byLogin.set(p.login, list);
    }

    // How many changes Toolbox made to each account: the next one's key.
    const counts = await runnerChangeCounts(db, platformId);
    for (const account of accounts) {
      if (unsettled.has(account.login)) continue;
      const groupMax = groupLeverage.get(account.group);
      if (groupMax === undefined) continue;
      const input: LeverageAccount = {
        login: account.login,
        group: account.group,
        currency: account.currency,
        equity: account.equity,
        leverage: account.leverage,
        positions: byLogin.get(account.login) ?? [],
      };
      const decision = evaluateAccount(compiled, input, groupMax, clock.now);
      if (decision.leverage === account.leverage) continue;
      const n = (counts.get(account.login) ?? 0) + 1;
      const intent = await insertChange(db, {
        organizationId: platform.organizationId,
        platformId,
        login: account.login,
        key: `toolbox:${account.login}:${n}`,
        fromLeverage: account.leverage,
        toLeverage: decision.leverage,
        ruleName: decision.ruleName,
        tierIndex: decision.tierIndex,
        windowKind: decision.windowKind,
        reason: decision.reason,
        source: "toolbox",
        status: "pending",
        changedAt: new Date(time.time),
      });
      counts.set(account.login, n);
      if (!intent) continue; // another node decided it: it sends it
      const settled = await this.send(connector, intent, false);
      if (settled?.status === "applied") result.applied.push(settled);
      else if (settled?.status === "failed") result.failed.push(settled);
    }
    return result;
  }

  /**
   * Sends an intent and settles it: `applied` (published once, by this node), `failed` on the
   * server's refusal, or left pending (undefined) when the server could not be reached. `check`
   * reads the account first: an intent whose account already has the leverage is settled unsent.
   */
  private async send(connector: TradePlatformConnector, intent: LeverageChangeRow, check: boolean): Promise<LeverageChangeRow | undefined> {
    const { db } = this.deps;
    try {
      const already = check && (await connector.getAccount(intent.login)).leverage === intent.toLeverage;
      if (!already) {
        await connector.setLeverage(intent.login, intent.toLeverage);
        this.deps.journal(
          `'${intent.login}': leverage 1:${intent.fromLeverage} → 1:${intent.toLeverage} by Toolbox's Flexible Leverage rules: ${intent.reason}`,
          {
            platformId: intent.platformId,
            login: intent.login,
            key: intent.key,
          },
        );
      }
    } catch (err) {
      if (!isRefusal(err)) {
        this.deps.warn(err, `flexible leverage: the change of ${intent.login} is left to the next round`);
        return undefined;
      }
      return settleIntent(db, intent.id, "failed", errorText(err));
    }
    const applied = await settleIntent(db, intent.id, "applied");
    if (applied) {
      const { event, id } = changedEvent(applied);
      await this.deps.publish(event, id).catch((err: unknown) => this.deps.warn(err, "flexible leverage: a change could not be published"));
    }
    return applied;
  }
}

const runners = new WeakMap<AppContext, FlexibleLeverageRunner>();

/** The runner of an app (tests and the simulator's clock route reach it through the app's context). */
export function flexibleLeverageRunnerOf(ctx: AppContext): FlexibleLeverageRunner | undefined {
  return runners.get(ctx);
}

export function runnerDepsOf(app: FastifyInstance, nodeId: string): RunnerDeps {
  const log = app.log.child({ module: "flexibleLeverage" });
  return {
    db: app.ctx.database.db,
    nodeId,
    leaseTtlMs: 15_000,
    connectorFor: (organizationId, platformId) => app.platforms.connectorFor(organizationId, platformId),
    publish: (event, id) => app.bus.publish(event, { ids: [id] }),
    warn: (err, message) => log.warn({ err }, message),
    journal: (line, fields) => log.info(fields, line),
  };
}

export async function flexibleLeverageRunnerPlugin(app: FastifyInstance) {
  const runner = new FlexibleLeverageRunner(runnerDepsOf(app, app.platforms.node));
  const previous = runners.get(app.ctx);
  runners.set(app.ctx, runner);
  app.addHook("onReady", async () => runner.start());
  app.addHook("onClose", async () => {
    await runner.stop();
    if (runners.get(app.ctx) !== runner) return;
    if (previous) runners.set(app.ctx, previous);
    else runners.delete(app.ctx);
  });
}
