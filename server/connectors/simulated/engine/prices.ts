/**
 * The simulated price feed: each symbol's mid price takes a log-normal random-walk step per tick
 * while its session is open; the spread breathes around the symbol's typical spread. Deterministic
 * from the server's seed.
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

export class PriceFeed {
  private readonly feeds = new Map<string, Feed>();
  /** Conversion rates at the current prices; cleared on every tick. */
  private rates = new Map<string, number | undefined>();

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

  /** Moves every symbol whose market is open; closed markets keep their last quote. */
  tick(now: number, isOpen: (symbol: TradeSymbol) => boolean): void {
    for (const feed of this.feeds.values()) {
      if (!isOpen(feed.symbol)) continue;
      feed.mid *= Math.exp(feed.volatility * this.random.normal());
      feed.quote = this.quoteOf(feed, now);
    }
    this.rates.clear();
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

  quotes(): Quote[] {
    return [...this.feeds.values()].map((f) => f.quote);
  }

  private quoteOf(feed: Feed, now: number): Quote {
    const { digits, spread } = feed.symbol;
    const points = Math.max(1, Math.round(spread * (0.8 + 0.4 * this.random.next())));
    const bid = roundPrice(feed.mid - (points * pointSize(digits)) / 2, digits);
    const ask = roundPrice(bid + points * pointSize(digits), digits);
    return { symbol: feed.symbol.name, bid, ask, time: now };
  }
}
