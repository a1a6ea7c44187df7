/**
 * The Quotes Monitor's long-running part on this node (docs/quotes-monitor.md): follows the live
 * quotes of every enabled platform the monitor is assigned to (each time its connector connects),
 * keeps each symbol's figures (./book.ts), judges the organizations' alert rules every second and
 * publishes each alert raised or cleared on the bus (`quoteAlert`), from which the notifications
 * center writes the inbox and the channels. Rows for the live stream and a symbol's last hour for
 * its chart are read from here.
 *
 * Several nodes: each follows the platforms it is connected to and judges the same ticks; an
 * alert's episode is the platform's time of the tick it starts from, so its bus message id and its
 * inbox dedupe key are the same on every node: raised once.
 *
 * One idea: from the platforms' ticks to rows and alerts.
 */
import type { FastifyBaseLogger } from "fastify";
import type { Holiday } from "../../../../core/schemas/quoteHolidays.ts";
import { EMPTY_SYMBOL_MAP, type ComparisonFrame, type SymbolMap } from "../../../../core/schemas/quoteComparison.ts";
import type { AlertKind, AlertRule, QuoteHistoryPoint, QuotePlatform, QuoteFigures, QuoteRow, QuoteTick } from "../../../../core/schemas/quotesMonitor.ts";
import { compileMask } from "../../../../core/trading/index.ts";
import type { Clock, TimerHandle } from "../../../connectors/clock.ts";
import type { QuoteStream, TradePlatformConnector } from "../../../connectors/connector.ts";
import type { EventBus } from "../../../events/bus.ts";
import type { PlatformRef, PlatformState, QuoteAlertBusEvent } from "../../../events/types.ts";
import { PlatformBook, type SymbolStats } from "./book.ts";
import { comparisonOf, crossServerVerdicts } from "./comparison.ts";
import { alertsByRow, allRows, changesSince, type LiveCursor } from "./live.ts";

export interface QuotesMonitorPlatforms {
  onConnected(listener: (platform: PlatformRef, connector: TradePlatformConnector) => void): () => void;
  state(platformId: string): PlatformState;
}

export interface AssignedPlatform {
  id: string;
  organizationId: string;
  name: string;
  type: string;
}

export interface QuotesMonitorSources {
  /** The enabled platforms the monitor is assigned to, every organization's. */
  assigned(): Promise<AssignedPlatform[]>;
  /** Every organization's enabled alert rules. */
  rules(): Promise<(AlertRule & { organizationId: string })[]>;
  /** The organizations' symbol maps and holidays (those that set any). */
  settings?(): Promise<Map<string, MonitorSettings>>;
}

export interface MonitorSettings {
  symbolMap: SymbolMap;
  holidays: Holiday[];
}

export interface QuotesMonitorOptions {
  platforms: QuotesMonitorPlatforms;
  sources: QuotesMonitorSources;
  bus: EventBus;
  clock: Clock;
  log: FastifyBaseLogger;
  /** How often the rules are judged (1 s) and the assignments and rules read again (5 s). */
  evaluateEveryMs?: number;
  refreshEveryMs?: number;
  /** How often each followed server's clock is read again (10 s). */
  serverTimeEveryMs?: number;
}

interface Active {
  ruleId: string;
  organizationId: string;
  platformId: string;
  symbol: string;
  kind: AlertKind;
  episode: string;
  message: string;
  /** A cross-server alert's instrument (its other platforms' rows show it too). */
  instrument?: string;
  /** A cross-server alert's second platform (of the ordered pair; `platformId` is the first). */
  otherPlatformId?: string;
}

interface Following {
  connector: TradePlatformConnector;
  stream: QuoteStream | null;
}

export class QuotesMonitor {
  private readonly books = new Map<string, PlatformBook>();
  private readonly connectors = new Map<string, TradePlatformConnector>();
  private readonly following = new Map<string, Following>();
  /** Connectors that refused to stream quotes: not asked again until the platform reconnects. */
  private readonly refused = new WeakSet<TradePlatformConnector>();
  private assigned = new Map<string, AssignedPlatform>();
  private rules: (AlertRule & { organizationId: string })[] = [];
  private settings = new Map<string, MonitorSettings>();
  private readonly active = new Map<string, Active>();
  private readonly lastRaised = new Map<string, number>();
  private timers: TimerHandle[] = [];
  private unlisten: (() => void) | null = null;
  private changes: { close(): void } | null = null;
  private stopped = false;
  private evaluations = 0;
  private refreshing: Promise<void> | null = null;
  private refreshAgain = false;
  private readonly o: Required<Omit<QuotesMonitorOptions, "platforms" | "sources" | "bus" | "clock" | "log">> & QuotesMonitorOptions;

  constructor(options: QuotesMonitorOptions) {
    // `??`, not a spread over defaults: the plugin passes its options through, undefined when unset,
    // and an undefined period is a timer of 1 ms (it read the database ~100 times a second).
    this.o = {
      ...options,
      evaluateEveryMs: options.evaluateEveryMs ?? 1_000,
      refreshEveryMs: options.refreshEveryMs ?? 5_000,
      serverTimeEveryMs: options.serverTimeEveryMs ?? 10_000,
    };
  }

  async start(): Promise<void> {
    this.unlisten = this.o.platforms.onConnected((platform, connector) => {
      this.connectors.set(platform.id, connector);
      if (this.assigned.has(platform.id)) this.follow(platform.id, connector);
    });
    // A platform created, changed (its apps assigned), or removed, on any node: read the assignments
    // again at once, not at the next period (a new organization's platforms would wait for it).
    this.changes = this.o.bus.subscribe({ types: ["platformChanged", "platformRemoved"] }, () => {
      if (!this.stopped) void this.refresh();
    });
    await this.refresh();
    // Timer-driven reads never ask for another: the next period does.
    this.every(this.o.refreshEveryMs, () => {
      if (!this.refreshing) void this.refresh();
    });
    this.every(this.o.evaluateEveryMs, () => this.evaluate());
  }

  stop(): void {
    this.stopped = true;
    this.unlisten?.();
    this.changes?.close();
    for (const t of this.timers) this.o.clock.clearTimeout(t);
    this.timers = [];
    for (const f of this.following.values()) f.stream?.close();
    this.following.clear();
  }

  /**
   * Reads the assignments and the rules again (also after a rule changes on this node). One read at
   * a time: a database slower than the period must not gather a queue of them (a call meanwhile
   * asks for one more read after it).
   */
  async refresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = this.readSources().finally(() => (this.refreshing = null));
    await this.refreshing;
    if (this.refreshAgain && !this.stopped) {
      this.refreshAgain = false;
      await this.refresh();
    }
  }

  private async readSources(): Promise<void> {
    try {
      const [assigned, rules, settings] = await Promise.all([
        this.o.sources.assigned(),
        this.o.sources.rules(),
        this.o.sources.settings?.() ?? new Map<string, MonitorSettings>(),
      ]);
      if (this.stopped) return;
      this.assigned = new Map(assigned.map((p) => [p.id, p]));
      this.rules = rules;
      this.settings = settings;
      for (const book of this.books.values()) book.setHolidays(settings.get(book.organizationId)?.holidays ?? []);
      for (const [id, f] of this.following)
        if (!this.assigned.has(id)) {
          f.stream?.close();
          this.following.delete(id);
          this.books.delete(id);
        }
      for (const id of this.books.keys()) if (!this.assigned.has(id)) this.books.delete(id);
      for (const p of assigned) {
        const connector = this.connectors.get(p.id);
        if (connector && this.following.get(p.id)?.connector !== connector && !this.refused.has(connector)) this.follow(p.id, connector);
      }
      const ruleIds = new Set(rules.map((r) => r.id));
      for (const [key, a] of this.active) if (!ruleIds.has(a.ruleId) || !this.assigned.has(a.platformId)) this.active.delete(key);
    } catch (err) {
      if (!this.stopped) this.o.log.warn({ err }, "quotes monitor could not read its platforms and rules");
    }
  }

  private bookOf(platformId: string): PlatformBook {
    let book = this.books.get(platformId);
    if (!book) {
      book = new PlatformBook(platformId, this.assigned.get(platformId)?.organizationId ?? "");
      book.setHolidays(this.settings.get(book.organizationId)?.holidays ?? []);
      this.books.set(platformId, book);
    }
    return book;
  }

  private follow(platformId: string, connector: TradePlatformConnector): void {
    const previous = this.following.get(platformId);
    if (previous?.connector === connector) return;
    previous?.stream?.close();
    const following: Following = { connector, stream: null };
    this.following.set(platformId, following);
    const book = this.bookOf(platformId);
    const current = () => this.following.get(platformId) === following && !this.stopped;
    void (async () => {
      try {
        book.setSymbols(await connector.listSymbols());
        await this.readServerTime(book, connector);
        if (!current()) return;
        following.stream = connector.quotes();
        book.problem = null;
        book.followingSince = this.o.clock.now();
        for await (const ticks of following.stream) {
          const now = this.o.clock.now();
          for (const quote of ticks) book.symbols.get(quote.symbol)?.tick(quote, now);
        }
        if (current()) book.problem = "The quote stream ended; Toolbox follows it again when the platform reconnects.";
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if ((error as { code?: string }).code === "rejected") this.refused.add(connector);
        if (current()) book.problem = message;
      } finally {
        if (this.following.get(platformId) === following) this.following.delete(platformId);
      }
    })();
  }

  /** Reads a followed platform's clock again now (its clock was moved: the simulator's control API). */
  async serverClockChanged(platformId: string): Promise<void> {
    const f = this.following.get(platformId);
    const book = this.books.get(platformId);
    // The sessions too: a simulated server reports its real ones again once its clock is moved (decision 0084).
    if (f && book) {
      // Until both are read, the book's sessions are the old clock's: its silences are not judged
      // (a loaded node could take longer than a rule's threshold, and call a closed market stale).
      book.clockPending++;
      try {
        await Promise.all([this.readServerTime(book, f.connector), f.connector.listSymbols().then((symbols) => book.setSymbols(symbols))]).catch(
          () => undefined,
        );
      } finally {
        book.clockPending--;
      }
    }
  }

  /**
   * Learns the server's local time against this node's clock. Reads can overlap (the periodic one
   * and the control route's): an answer is taken only if no read started after it has answered,
   * so a slow answer from before a clock move never undoes the move.
   */
  private async readServerTime(book: PlatformBook, connector: TradePlatformConnector): Promise<void> {
    const read = ++book.clockReads;
    const asked = this.o.clock.now();
    const t = await connector.serverTime();
    if (read < book.clockAnswered) return;
    book.clockAnswered = read;
    book.serverLocalOffsetMs = t.time + t.timeZoneOffsetMinutes * 60_000 - asked;
  }

  // ── Alerts ─────────────────────────────────────────────────────────────────────────────────

  /** Judges every rule once, now; raises and clears on the bus. */
  evaluate(): void {
    const now = this.o.clock.now();
    if (++this.evaluations % Math.max(1, Math.round(this.o.serverTimeEveryMs / this.o.evaluateEveryMs)) === 0)
      for (const [id, f] of this.following) {
        const book = this.books.get(id);
        if (book) this.readServerTime(book, f.connector).catch(() => undefined);
      }
    const seen = new Set<string>();
    for (const rule of this.rules) {
      const matches = compileMask(rule.symbolMask);
      const books = [...this.books.values()].filter(
        (b) => b.organizationId === rule.organizationId && b.problem === null && (rule.platformIds === "all" || rule.platformIds.includes(b.platformId)),
      );
      if (rule.kind === "crossServer") {
        this.judgeCrossServer(rule, books, now, seen);
        continue;
      }
      for (const book of books)
        for (const stats of book.symbols.values()) {
          if (!matches(stats.symbol)) continue;
          const key = `${rule.id}:${book.platformId}:${stats.symbol}`;
          seen.add(key);
          if (rule.kind === "staleFeed" && book.clockPending > 0) continue; // as it was, until the moved clock is read
          const verdict = rule.kind === "staleFeed" ? this.stale(rule, book, stats, now) : this.wide(rule, stats, now);
          this.settle(key, rule, book.platformId, stats.symbol, verdict, now);
        }
    }
    for (const [key, a] of this.active) if (!seen.has(key)) this.clear(key, a);
  }

  private stale(rule: Extract<AlertRule, { kind: "staleFeed" }>, book: PlatformBook, stats: SymbolStats, now: number) {
    if (book.session(stats, now) !== "open") return null;
    const since = stats.lastArrivalAt ?? book.followingSince;
    if (since === null || now - since <= rule.staleSeconds * 1000) return null;
    const silent = Math.round((now - since) / 1000);
    return {
      episode: stats.lastTickAt === null ? "never" : String(stats.lastTickAt),
      message:
        stats.lastTickAt === null
          ? `No tick for ${stats.symbol} for ${silent} s while its market is open (threshold ${rule.staleSeconds} s).`
          : `No tick for ${stats.symbol} for ${silent} s while its market is open (threshold ${rule.staleSeconds} s); the last was at ${new Date(stats.lastTickAt).toISOString()}.`,
    };
  }

  private wide(rule: Extract<AlertRule, { kind: "spread" }>, stats: SymbolStats, now: number) {
    const spread = stats.spread;
    if (spread === null || stats.lastTickAt === null) return null;
    const average = stats.averageSpread(now, 360);
    const overPoints = rule.spreadPoints !== null && spread > rule.spreadPoints;
    const overAverage = rule.spreadTimesAverage !== null && average !== null && spread > rule.spreadTimesAverage * average;
    if (!overPoints && !overAverage) return null;
    const limits = [
      rule.spreadPoints !== null ? `${rule.spreadPoints} points` : null,
      rule.spreadTimesAverage !== null && average !== null ? `${rule.spreadTimesAverage}× its hour's average of ${average}` : null,
    ].filter(Boolean);
    return { episode: String(stats.lastTickAt), message: `${stats.symbol}'s spread is ${spread} points, above ${limits.join(" or ")}.` };
  }

  private judgeCrossServer(
    rule: Extract<AlertRule, { kind: "crossServer" }> & { organizationId: string },
    books: PlatformBook[],
    now: number,
    seen: Set<string>,
  ): void {
    const nameOf = (id: string) => this.assigned.get(id)?.name ?? "another platform";
    // One alert per instrument and pair of platforms (ordered): the same whichever quotes higher.
    for (const { instrument, pair, symbol, verdict } of crossServerVerdicts(rule, books, this.symbolMapOf(rule.organizationId), now, nameOf)) {
      const key = `${rule.id}:${instrument}:${pair.join(":")}`;
      seen.add(key);
      this.settle(key, rule, pair[0], symbol, verdict, now, { instrument, otherPlatformId: pair[1] });
    }
  }

  private settle(
    key: string,
    rule: AlertRule & { organizationId: string },
    platformId: string,
    symbol: string,
    verdict: { episode: string; message: string } | null,
    now: number,
    crossServer?: Pick<Active, "instrument" | "otherPlatformId">,
  ): void {
    const active = this.active.get(key);
    if (!verdict) {
      if (active) this.clear(key, active);
      return;
    }
    if (active) return;
    const last = this.lastRaised.get(key);
    if (last !== undefined && now - last < rule.cooldownSeconds * 1000) return;
    const a: Active = {
      ruleId: rule.id,
      organizationId: rule.organizationId,
      platformId,
      symbol,
      kind: rule.kind,
      episode: verdict.episode,
      message: verdict.message,
      ...crossServer,
    };
    this.active.set(key, a);
    this.lastRaised.set(key, now);
    this.publish(a, "raised", rule.name, rule.severity);
  }

  private clear(key: string, a: Active): void {
    this.active.delete(key);
    const rule = this.rules.find((r) => r.id === a.ruleId);
    if (!rule) return;
    this.publish({ ...a, message: `${a.symbol}: back to normal (${rule.name}).` }, "cleared", rule.name, rule.severity);
  }

  private publish(a: Active, state: "raised" | "cleared", ruleName: string, severity: AlertRule["severity"]): void {
    const event: QuoteAlertBusEvent = {
      type: "quoteAlert",
      organizationId: a.organizationId,
      platformId: a.platformId,
      state,
      ruleId: a.ruleId,
      ruleName,
      kind: a.kind,
      symbol: a.symbol,
      severity,
      message: a.message,
      episode: a.episode,
      ...(a.otherPlatformId ? { otherPlatformId: a.otherPlatformId } : {}),
    };
    const pair = a.otherPlatformId ? `${a.platformId}.${a.otherPlatformId}` : a.platformId;
    const id = `quoteAlert.${a.ruleId}.${pair}.${a.symbol}.${a.episode}.${state}`;
    this.o.bus.publish(event, { ids: [id] }).catch((err: unknown) => this.o.log.warn({ err }, "quote alert not published"));
  }

  // ── Reads ──────────────────────────────────────────────────────────────────────────────────

  /**
   * The organization's monitor platforms, with why each one's quotes do not arrive (null: they do).
   * `assigned`, when given, is the list read from the database just now (the API's answer must
   * show an assignment committed a moment ago, before this node's monitor has read it).
   */
  platformsOf(organizationId: string, assigned: readonly AssignedPlatform[] = [...this.assigned.values()]): QuotePlatform[] {
    return assigned
      .filter((p) => p.organizationId === organizationId)
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((p) => {
        const state = this.o.platforms.state(p.id);
        const book = this.books.get(p.id);
        const problem =
          state.state !== "connected"
            ? `${p.name} is not connected (${state.state})${state.lastError ? `: ${state.lastError}` : "."}`
            : book
              ? book.problem
              : "Connecting…";
        return { id: p.id, name: p.name, type: p.type, problem };
      });
  }

  /** Every row of the organization, now. */
  rowsOf(organizationId: string): QuoteRow[] {
    return allRows(organizationId, this.books.values(), this.alertsOf(organizationId), this.o.clock.now());
  }

  /** What changed for a live stream since its last frame (./live.ts); the cursor moves on. */
  changesSince(cursor: LiveCursor, organizationId: string): { rows: QuoteRow[]; ticks: QuoteTick[]; figures: QuoteFigures[] } {
    return changesSince(cursor, organizationId, this.books.values(), () => this.alertsOf(organizationId), this.o.clock.now());
  }

  private alertsOf(organizationId: string): Map<string, Set<AlertKind>> {
    return alertsByRow(organizationId, this.active.values(), this.books.values(), this.symbolMapOf(organizationId));
  }

  /** A symbol's last hour, for its chart; undefined when the monitor does not follow it for this organization. */
  historyOf(organizationId: string, platformId: string, symbol: string): QuoteHistoryPoint[] | undefined {
    const book = this.books.get(platformId);
    if (!book || book.organizationId !== organizationId) return undefined;
    return book.symbols.get(symbol)?.history(this.o.clock.now());
  }

  /** The same instruments across the organization's platforms, now (the comparison view). */
  comparisonOf(organizationId: string): ComparisonFrame {
    const now = this.o.clock.now();
    const books = [...this.books.values()].filter((b) => b.organizationId === organizationId && b.problem === null);
    const rules = this.rules.filter((r) => r.organizationId === organizationId);
    return { now, rows: comparisonOf(books, this.symbolMapOf(organizationId), rules, now) };
  }

  private symbolMapOf(organizationId: string): SymbolMap {
    return this.settings.get(organizationId)?.symbolMap ?? EMPTY_SYMBOL_MAP;
  }

  get now(): number {
    return this.o.clock.now();
  }

  private every(ms: number, task: () => void): void {
    const schedule = () => {
      const handle = this.o.clock.setTimeout(() => {
        this.timers = this.timers.filter((t) => t !== handle);
        if (this.stopped) return;
        schedule();
        try {
          task();
        } catch (err) {
          this.o.log.error({ err }, "quotes monitor failed");
        }
      }, ms);
      this.timers.push(handle);
    };
    schedule();
  }
}
