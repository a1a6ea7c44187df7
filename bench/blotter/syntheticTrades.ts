/**
 * Synthetic but realistic trade events for one MT5 platform, published on the server's bus at a
 * target rate (what the trade feed does with a connector's events), for bench/tradesBlotter.ts
 * when the simulated server cannot trade that fast. Traders open positions (positionOpened + an
 * entry deal), move their stops or partly close them (positionModified), and close them
 * (positionClosed + an exit deal), on the platform's real logins and symbols; about 1.6 events per
 * action, a few thousand positions open at a time. A deal's id ends with the time it was
 * published (".<ms since the epoch>"), so the browser can tell when it became visible.
 */
import type { Deal, Position, TradeEvent } from "../../core/trading/index.ts";
import type { EventBus } from "../../server/events/bus.ts";
import type { DomainEvent } from "../../server/events/types.ts";

export interface SyntheticSymbol {
  name: string;
  price: number;
  digits: number;
}

export class SyntheticTrades {
  private sequence = 0;
  private nextDeal = 5_000_000;
  private nextPosition = 9_000_000;
  private readonly open: Position[] = [];
  private seed = 7;
  constructor(
    private readonly organizationId: string,
    private readonly platformId: string,
    private readonly logins: string[],
    private readonly symbols: SyntheticSymbol[],
    private readonly maxOpen = 4000,
  ) {}

  private random(): number {
    // Deterministic (mulberry32): the same run publishes the same trades.
    let t = (this.seed += 0x6d2b79f5);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  private pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.random() * list.length)]!;
  }

  private priceOf(symbol: SyntheticSymbol): number {
    return Number((symbol.price * (1 + (this.random() - 0.5) * 0.002)).toFixed(symbol.digits));
  }

  private deal(position: Position, now: number, entry: "in" | "out", price: number, profit: number): Deal {
    const deal = ++this.nextDeal;
    return {
      id: `${deal}.${now}`,
      login: position.login,
      time: now,
      action: entry === "in" ? position.side : position.side === "buy" ? "sell" : "buy",
      entry,
      positionId: position.id,
      symbol: position.symbol,
      volume: position.volume,
      price,
      profit,
      commission: entry === "in" ? -Math.round(position.volume / 100) * 7 : 0,
      swap: 0,
      comment: position.comment,
      reason: position.reason,
      native: { platform: "MT5", deal, order: deal + 1, position: Number(position.id) },
    };
  }

  /** The events of one trading action (one to two events). */
  private action(now: number): TradeEvent[] {
    const roll = this.random();
    if (this.open.length < 500 || (roll < 0.35 && this.open.length < this.maxOpen)) {
      const symbol = this.pick(this.symbols);
      const id = String(++this.nextPosition);
      const price = this.priceOf(symbol);
      const position: Position = {
        id,
        login: this.pick(this.logins),
        symbol: symbol.name,
        side: this.random() < 0.5 ? "buy" : "sell",
        volume: (1 + Math.floor(this.random() * 50)) * 1000,
        openTime: now,
        openPrice: price,
        currentPrice: price,
        sl: null,
        tp: null,
        profit: 0,
        swap: 0,
        comment: this.random() < 0.2 ? "EA scalper" : "",
        reason: this.pick(["client", "mobile", "web", "expert"] as const),
        previousId: null,
        native: { platform: "MT5", position: Number(id) },
      };
      this.open.push(position);
      return [
        { type: "positionOpened", sequence: ++this.sequence, time: now, login: position.login, position },
        { type: "dealAdded", sequence: ++this.sequence, time: now, login: position.login, deal: this.deal(position, now, "in", price, 0) },
      ];
    }
    const at = Math.floor(this.random() * this.open.length);
    const position = this.open[at]!;
    const symbol = this.symbols.find((s) => s.name === position.symbol) ?? this.symbols[0]!;
    const price = this.priceOf(symbol);
    const profit = Math.round((price - position.openPrice) * (position.side === "buy" ? 1 : -1) * position.volume * 10);
    if (roll < 0.75) {
      const moved: Position = {
        ...position,
        currentPrice: price,
        profit,
        sl: Number((price * (position.side === "buy" ? 0.99 : 1.01)).toFixed(symbol.digits)),
        tp: Number((price * (position.side === "buy" ? 1.02 : 0.98)).toFixed(symbol.digits)),
      };
      this.open[at] = moved;
      return [{ type: "positionModified", sequence: ++this.sequence, time: now, login: position.login, position: moved, change: "stops" }];
    }
    this.open[at] = this.open[this.open.length - 1]!;
    this.open.pop();
    const closed = { ...position, currentPrice: price, profit, closeTime: now, closePrice: price, closeReason: position.reason };
    return [
      { type: "positionClosed", sequence: ++this.sequence, time: now, login: position.login, position: closed },
      { type: "dealAdded", sequence: ++this.sequence, time: now, login: position.login, deal: this.deal(position, now, "out", price, profit) },
    ];
  }

  /** `count` events as the bus's trade events, stamped now. */
  batch(count: number): DomainEvent[] {
    const now = Date.now();
    const out: DomainEvent[] = [];
    while (out.length < count)
      for (const event of this.action(now)) out.push({ type: "trade", organizationId: this.organizationId, platformId: this.platformId, event });
    return out;
  }
}

/**
 * Publishes at `rate` events a second, in a batch every `tickMs` (the trade feed publishes what a
 * connector delivered, in batches too). Behind schedule, it catches up by at most a second's worth.
 * Returns `stop()`, which resolves once the last batch is on the bus.
 */
export function publishAtRate(bus: EventBus, trades: SyntheticTrades, rate: number, tickMs = 10): { stop(): Promise<void>; published(): number } {
  const started = performance.now();
  let scheduled = 0;
  let sent = 0;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const tick = () => {
    if (stopped) return;
    const due = Math.floor(((performance.now() - started) / 1000) * rate);
    if (due - scheduled > rate) scheduled = due - rate;
    const count = due - scheduled;
    if (count > 0) {
      const batch = trades.batch(count);
      scheduled += batch.length;
      sent += batch.length;
      inFlight = inFlight.then(() => bus.publish(batch)).catch(() => undefined);
    }
    timer = setTimeout(tick, tickMs);
  };
  tick();
  return {
    published: () => sent,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
  };
}
