/**
 * One platform's symbols as the monitor sees them: the latest quote of each, and its last hour in
 * 10-second slices (ticks, spreads, last prices) from which the averages, the tick rate and the
 * detail chart are read. The last minute is the last six slices, the last hour the last 360 (so an
 * average moves in 10-second steps). Spreads are in points of the symbol's digits.
 */
import type { Holiday } from "../../../../core/schemas/quoteHolidays.ts";
import type { QuoteHistoryPoint, QuoteRow } from "../../../../core/schemas/quotesMonitor.ts";
import { compileMask, sessionState, type Quote, type Session, type SessionState, type TradeSymbol } from "../../../../core/trading/index.ts";

export const SLICE_MS = 10_000;
export const HOUR_SLICES = 360;
const MINUTE_SLICES = 6;

interface Slice {
  start: number;
  ticks: number;
  spreadSum: number;
  maxSpread: number;
  bid: number;
  ask: number;
}

export class SymbolStats {
  bid: number | null = null;
  ask: number | null = null;
  /** The platform's time of the last tick. */
  lastTickAt: number | null = null;
  /** This node's time when the last tick arrived (staleness is judged on it, whatever the platform's clock says). */
  lastArrivalAt: number | null = null;
  /** Grows with every change; the live stream sends rows whose version moved. */
  version = 0;
  /** The row's key, `${platformId}:${symbol}` (made once: the live stream looks every row up ten times a second). */
  key = "";
  /** The organization's holidays that close this symbol (server-local dates). */
  holidays: readonly string[] = [];
  private readonly slices: Slice[] = [];

  constructor(
    readonly symbol: string,
    readonly path: string,
    readonly digits: number,
    /** The symbol's trading sessions as its server last reported them (read again when its clock moves). */
    public sessions: readonly Session[],
  ) {}

  get spread(): number | null {
    return this.bid === null || this.ask === null ? null : Math.round((this.ask - this.bid) * 10 ** this.digits);
  }

  get mid(): number | null {
    return this.bid === null || this.ask === null ? null : (this.bid + this.ask) / 2;
  }

  tick(quote: Quote, arrivedAt: number): void {
    this.bid = quote.bid;
    this.ask = quote.ask;
    this.lastTickAt = quote.time;
    this.lastArrivalAt = arrivedAt;
    this.version++;
    const spread = this.spread ?? 0;
    const start = arrivedAt - (arrivedAt % SLICE_MS);
    let slice = this.slices.at(-1);
    if (!slice || slice.start !== start) {
      slice = { start, ticks: 0, spreadSum: 0, maxSpread: 0, bid: quote.bid, ask: quote.ask };
      this.slices.push(slice);
      if (this.slices.length > HOUR_SLICES + 1) this.slices.splice(0, this.slices.length - HOUR_SLICES - 1);
    }
    slice.ticks++;
    slice.spreadSum += spread;
    slice.maxSpread = Math.max(slice.maxSpread, spread);
    slice.bid = quote.bid;
    slice.ask = quote.ask;
  }

  /** The index of the first of the last `count` slices (slices are in time order: read from the end). */
  private firstWithin(now: number, count: number): number {
    const from = now - (now % SLICE_MS) - (count - 1) * SLICE_MS;
    let i = this.slices.length;
    while (i > 0 && this.slices[i - 1]!.start >= from) i--;
    return i;
  }

  private within(now: number, count: number): Slice[] {
    return this.slices.slice(this.firstWithin(now, count));
  }

  /** Average spread (points) over the last `count` slices, null without ticks. */
  averageSpread(now: number, count: number): number | null {
    let ticks = 0;
    let sum = 0;
    for (let i = this.firstWithin(now, count); i < this.slices.length; i++) {
      ticks += this.slices[i]!.ticks;
      sum += this.slices[i]!.spreadSum;
    }
    return ticks === 0 ? null : Math.round((sum / ticks) * 10) / 10;
  }

  ticksPerMinute(now: number): number {
    let n = 0;
    for (let i = this.firstWithin(now, MINUTE_SLICES); i < this.slices.length; i++) n += this.slices[i]!.ticks;
    return n;
  }

  row(platformId: string, now: number, session: SessionState, alerts: QuoteRow["alerts"]): QuoteRow {
    return {
      key: `${platformId}:${this.symbol}`,
      platformId,
      symbol: this.symbol,
      path: this.path,
      digits: this.digits,
      bid: this.bid,
      ask: this.ask,
      spread: this.spread,
      avgSpreadMinute: this.averageSpread(now, MINUTE_SLICES),
      avgSpreadHour: this.averageSpread(now, HOUR_SLICES),
      ticksPerMinute: this.ticksPerMinute(now),
      lastTickAt: this.lastTickAt,
      session,
      alerts,
    };
  }

  history(now: number): QuoteHistoryPoint[] {
    return this.within(now, HOUR_SLICES).map((s) => ({
      time: s.start,
      ticks: s.ticks,
      bid: s.bid,
      ask: s.ask,
      avgSpread: Math.round((s.spreadSum / s.ticks) * 10) / 10,
      maxSpread: s.maxSpread,
    }));
  }
}

/** A platform's symbols and the server's clock (sessions are in server time). */
export class PlatformBook {
  readonly symbols = new Map<string, SymbolStats>();
  /** The server's local time minus this node's clock, learnt from `serverTime()`. */
  serverLocalOffsetMs = 0;
  /** The organization's holidays (each closes the symbols of its mask on its server-local date). */
  private holidays: readonly Holiday[] = [];
  /** Read sequence of the server's clock: only the latest read started sets the offset. */
  clockReads = 0;
  clockAnswered = 0;
  /** Re-reads of a moved server clock (and its sessions) under way: silences are not judged meanwhile. */
  clockPending = 0;
  /** Why quotes do not arrive; null while they do. */
  problem: string | null = "Connecting…";
  /** When the current quote stream started (a symbol with no tick since is judged from then). */
  followingSince: number | null = null;

  constructor(
    readonly platformId: string,
    readonly organizationId: string,
  ) {}

  setSymbols(symbols: readonly TradeSymbol[]): void {
    for (const s of symbols) {
      const known = this.symbols.get(s.name);
      if (known) {
        if (JSON.stringify(known.sessions) !== JSON.stringify(s.sessions)) {
          known.sessions = s.sessions;
          known.version++;
        }
        continue;
      }
      const stats = new SymbolStats(s.name, s.path, s.digits, s.sessions);
      stats.key = `${this.platformId}:${s.name}`;
      this.symbols.set(s.name, stats);
    }
    this.setHolidays(this.holidays);
  }

  /** Gives each symbol the dates of the holidays whose mask names it. */
  setHolidays(holidays: readonly Holiday[]): void {
    this.holidays = holidays;
    const masks = holidays.map((h) => ({ date: h.date, matches: compileMask(h.symbolMask) }));
    for (const stats of this.symbols.values()) stats.holidays = masks.filter((h) => h.matches(stats.symbol)).map((h) => h.date);
  }

  session(stats: SymbolStats, now: number): SessionState {
    return sessionState(stats.sessions, now + this.serverLocalOffsetMs, stats.holidays);
  }
}
