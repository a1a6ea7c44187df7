/**
 * Simulated clients: each action picks an account at random and opens, changes or closes a
 * position, or places a pending order a little away from the market (some with an expiration), as
 * the clients of a busy server do. Refusals (no money, market closed) are part of
 * trading; they land in the journal, not in an exception.
 */
import { isConnectorError } from "../errors.ts";
import { lotsToVolume, PENDING_ORDER_TYPES, pendingOrderSide, pointSize, type TradeReason } from "../../../core/trading/index.ts";
import { now, type EngineContext } from "./engine/context.ts";
import * as orders from "./engine/orders.ts";
import * as trading from "./engine/trading.ts";
import { closingPrice } from "./engine/valuation.ts";
import type { Random } from "./random.ts";

const LOTS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1];
const REASONS: TradeReason[] = ["client", "client", "mobile", "web", "expert"];

export class SimulatedTraders {
  private counter = 0;
  /** Actions attempted so far (refused ones included), for rate checks and benchmarks. */
  attempted = 0;

  constructor(
    private readonly ctx: EngineContext,
    private readonly random: Random,
  ) {}

  /** Performs `actions` trading actions now. Returns how many changed something. */
  step(actions: number): number {
    let done = 0;
    for (let i = 0; i < actions; i++) if (this.act()) done++;
    return done;
  }

  private act(): boolean {
    this.attempted++;
    const { state } = this.ctx;
    if (state.logins.length === 0) return false;
    const login = String(this.random.pick(state.logins));
    const account = state.account(login);
    const positions = [...account.positions];
    const roll = this.random.next();
    try {
      if (positions.length > 0 && roll < 0.45) this.close(this.random.pick(positions));
      else if (positions.length > 0 && roll < 0.6) this.modify(this.random.pick(positions));
      else if (roll > 0.9) this.placeOrder(login);
      else this.open(login);
      return true;
    } catch (error) {
      if (isConnectorError(error)) {
        this.ctx.journal.write(now(this.ctx), "warning", `'${login}': ${error.message}`, login);
        return false;
      }
      throw error;
    }
  }

  private open(login: string): void {
    const symbol = this.random.pick([...this.ctx.state.symbols.keys()]);
    trading.openPosition(this.ctx, {
      requestId: this.nextId(),
      login,
      symbol,
      side: this.random.chance(0.5) ? "buy" : "sell",
      volume: lotsToVolume(this.random.pick(LOTS)),
      reason: this.random.pick(REASONS),
    });
  }

  /** A limit or stop a few spreads from the market, so it often fills within minutes; a third expire after 10 minutes. */
  private placeOrder(login: string): void {
    const symbol = this.ctx.state.symbol(this.random.pick([...this.ctx.state.symbols.keys()]));
    const type = this.random.pick(PENDING_ORDER_TYPES);
    const quote = this.ctx.feed.quote(symbol.name);
    if (!quote) return;
    const market = pendingOrderSide(type) === "buy" ? quote.ask : quote.bid;
    const distance = (Math.max(symbol.stopsLevel, 1) + this.random.int(1, 3) * symbol.spread) * pointSize(symbol.digits);
    const below = type === "buyLimit" || type === "sellStop";
    orders.placePendingOrder(this.ctx, {
      requestId: this.nextId(),
      login,
      symbol: symbol.name,
      type,
      volume: lotsToVolume(this.random.pick(LOTS)),
      price: Number((below ? market - distance : market + distance).toFixed(symbol.digits)),
      expiration: this.random.chance(0.33) ? now(this.ctx) + 10 * 60_000 : null,
      reason: this.random.pick(REASONS),
    });
  }

  private modify(positionId: string): void {
    const position = this.ctx.state.position(positionId);
    const symbol = this.ctx.state.symbol(position.symbol);
    const price = closingPrice(this.ctx, position);
    const distance = (this.random.int(30, 400) * symbol.spread * pointSize(symbol.digits)) / 10;
    const round = (p: number) => Number(p.toFixed(symbol.digits));
    const down = round(price - distance);
    const up = round(price + distance);
    trading.modifyPosition(this.ctx, {
      requestId: this.nextId(),
      positionId,
      sl: position.side === "buy" ? down : up,
      tp: this.random.chance(0.7) ? (position.side === "buy" ? up : down) : null,
    });
  }

  private close(positionId: string): void {
    const position = this.ctx.state.position(positionId);
    const partial = position.volume >= 200 && this.random.chance(0.2);
    trading.closePosition(this.ctx, {
      requestId: this.nextId(),
      positionId,
      // Half, rounded down to whole 0.01 lots.
      volume: partial ? Math.floor(position.volume / 200) * 100 : undefined,
      reason: this.random.pick(REASONS),
    });
  }

  private nextId(): string {
    return `sim-${++this.counter}`;
  }
}
