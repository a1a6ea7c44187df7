/**
 * The simulated price feed: each symbol's mid price takes a log-normal random-walk step per tick
 * while its session is open; the spread breathes around the symbol's typical spread. Deterministic
 * from the server's seed.
 *
 * Per symbol (the Quotes Monitor's demo and tests, `SymbolFeedControl`): a tick rate of its own
 * (ticks per second; one tick per feed step otherwise), a stopped feed (no ticks at all, as when a
 * feeder dies) and a widened spread (a factor on the typical spread). Listeners hear every tick.
 */
import { conversionRate, pointSize, roundPrice, type Quote, type TradeSymbol } from "../../../../core/trading/index.ts";
import type { SymbolSeed } from "../catalog.ts";
import type { Random } from "../random.ts";

interface Feed {
  symbol: TradeSymbol;
  mid: number;
  volatility: number;
  quote: Quote;
}

/** What a test or the demo tool changes about one symbol's feed. */
export interface SymbolFeedControl {
  /** No ticks while true. */
  stopped: boolean;
  /** The spread is this many times the symbol's typical spread (1: normal). */
  spreadFactor: number;
  /** Ticks per second while the session is open; null: one tick per feed step. */
  ticksPerSecond: number | null;
}

const NORMAL: SymbolFeedControl = { stopped: false, spreadFactor: 1, ticksPerSecond: null };

export class PriceFeed {
  private readonly feeds = new Map<string, Feed>();
  /** Conversion rates at the current prices; cleared on every tick. */
  private rates = new Map<string, number | undefined>();
  private readonly controls = new Map<string, SymbolFeedControl & { carry: number }>();
  private readonly listeners = new Set<(ticks: readonly Quote[]) => void>();
  /** Time stepped since the feed's interval last came round. */
  private sinceBase = 0;

  constructor(
    seeds: readonly SymbolSeed[],
    private readonly random: Random,
    now: number,
  ) {
    for (const seed of seeds) {
      const feed: Feed = { symbol: seed.symbol, mid: seed.price, volatility: seed.volatility, quote: { symbol: seed.symbol.name, bid: 0, ask: 0, time: now } };
      feed.quote = this.quoteOf(feed, now);
      this.feeds.set(seed.symbol.name, feed);
    }
  }

  /**
   * One step of the feed, `stepMs` after the last. A symbol without a tick rate of its own moves
   * once per `baseStepMs` (the feed's interval: once per call when the two are equal, and at every
   * call when `stepMs` is 0, a step by hand); a symbol with one moves as often as its rate makes due
   * in `stepMs`, each at its own phase, so that a feed stepped finer than its interval spreads those
   * ticks over the interval instead of moving every symbol at one instant. Closed markets and
   * stopped feeds keep their last quote. Listeners get the step's ticks; returns whether the
   * interval came round (the server then also does what it does once per interval).
   */
  tick(now: number, isOpen: (symbol: TradeSymbol) => boolean, stepMs = 0, baseStepMs = stepMs): boolean {
    this.sinceBase += stepMs;
    const baseDue = stepMs === 0 || this.sinceBase >= baseStepMs;
    if (baseDue && stepMs > 0) this.sinceBase -= baseStepMs;
    const ticks: Quote[] = [];
    for (const feed of this.feeds.values()) {
      const control = this.controls.get(feed.symbol.name);
      if (control?.stopped) continue;
      let due = baseDue ? 1 : 0;
      if (control && control.ticksPerSecond !== null) {
        control.carry += (control.ticksPerSecond * stepMs) / 1000;
        due = Math.floor(control.carry);
        control.carry -= due;
      }
      if (due === 0 || !isOpen(feed.symbol)) continue;
      for (let i = 0; i < due; i++) {
        feed.mid *= Math.exp(feed.volatility * this.random.normal());
        feed.quote = this.quoteOf(feed, now);
        ticks.push(feed.quote);
      }
    }
    this.rates.clear();
    if (ticks.length > 0) for (const listener of this.listeners) listener(ticks);
    return baseDue || ticks.length > 0;
  }

  /** Hears every tick, as the server makes them; returns the way to stop. */
  listen(listener: (ticks: readonly Quote[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Changes one symbol's feed (unknown symbols: false); the rest of it stays as it was. */
  control(symbol: string, change: Partial<SymbolFeedControl>): boolean {
    if (!this.feeds.has(symbol)) return false;
    const current = this.controls.get(symbol) ?? { ...NORMAL, carry: phaseOf(symbol) };
    const next = { ...current, ...change };
    if (!next.stopped && next.spreadFactor === 1 && next.ticksPerSecond === null) this.controls.delete(symbol);
    else this.controls.set(symbol, next);
    return true;
  }

  /** Every symbol's feed back to normal. */
  restoreControls(): void {
    this.controls.clear();
  }

  controlOf(symbol: string): SymbolFeedControl {
    const { stopped, spreadFactor, ticksPerSecond } = this.controls.get(symbol) ?? NORMAL;
    return { stopped, spreadFactor, ticksPerSecond };
  }

  /** Quotes a symbol at exactly this bid and ask (the market control of the demo server and of tests). */
  set(symbol: string, bid: number, ask: number, now: number): void {
    const feed = this.feeds.get(symbol);
    if (!feed) throw new Error(`No feed for ${symbol}`);
    feed.mid = (bid + ask) / 2;
    feed.quote = { symbol, bid, ask, time: now };
    this.rates.clear();
  }

  /** Value of one unit of `from` in `to`, from the current mid prices. */
  rate(from: string, to: string): number | undefined {
    const key = `${from}>${to}`;
    if (!this.rates.has(key))
      this.rates.set(
        key,
        conversionRate(from, to, (s) => this.mid(s)),
      );
    return this.rates.get(key);
  }

  quote(symbol: string): Quote | undefined {
    return this.feeds.get(symbol)?.quote;
  }

  mid(symbol: string): number | undefined {
    const q = this.feeds.get(symbol)?.quote;
    return q ? (q.bid + q.ask) / 2 : undefined;
  }

  /** A symbol's configuration was written (its digits, its spread): the next ticks follow it. */
  reconfigure(symbol: TradeSymbol): void {
    const feed = this.feeds.get(symbol.name);
    if (feed) feed.symbol = structuredClone(symbol);
  }

  quotes(): Quote[] {
    return [...this.feeds.values()].map((f) => f.quote);
  }

  private quoteOf(feed: Feed, now: number): Quote {
    const { digits, spread } = feed.symbol;
    const factor = this.controls.get(feed.symbol.name)?.spreadFactor ?? 1;
    const points = Math.max(1, Math.round(spread * factor * (0.8 + 0.4 * this.random.next())));
    // The spread balance moves both prices by half of it (a server saved before it existed has none).
    const balance = feed.symbol.spreadBalance ?? 0;
    const bid = roundPrice(feed.mid - ((points - balance) * pointSize(digits)) / 2, digits);
    const ask = roundPrice(bid + points * pointSize(digits), digits);
    return { symbol: feed.symbol.name, bid, ask, time: now };
  }
}

/**
 * Where in its period a symbol with a tick rate of its own starts, in [0, 1): from its name, so
 * symbols of one rate do not all tick at the same instant (and the seeded draws are not touched).
 */
function phaseOf(symbol: string): number {
  let hash = 2166136261;
  for (let i = 0; i < symbol.length; i++) hash = Math.imul(hash ^ symbol.charCodeAt(i), 16777619);
  return (hash >>> 0) / 2 ** 32;
}
