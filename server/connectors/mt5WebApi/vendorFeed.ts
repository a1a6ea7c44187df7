/**
 * The live stream of an MT5 server without Toolbox's plugin: only the vendor's own Web API
 * commands, polled. Each poll reads the open positions (`/api/position/get_batch?group=*`), then the
 * deals since the last poll (`/api/deal/get_batch?group=*`, with an overlap, deduplicated by
 * ticket), and turns the difference into one native event: the new deals in time order, the
 * positions opened, changed (volume, stops, price) and closed, and the accounts those deals touched
 * or this connector changed. Pending orders likewise: the open orders (`/api/order/get_batch?group=*`)
 * and the orders gone to the history since the last poll (`/api/history/get_batch?group=*`), as
 * orders placed, changed, and filled (with the position, in the same event) or cancelled.
 * The poller lives as long as the connector, across sessions: after a reconnect it goes on from the
 * deals and positions it knew, so nothing made meanwhile is lost.
 *
 * What polling cannot see is said, not guessed: a position gone without its exit deal in sight is
 * kept a few polls for the deal to show, then reported as a gap, so consumers resync from the
 * server (the trade history store backfills, the blotter sends a snapshot). An order placed and
 * gone between two polls is reported placed, then filled or cancelled; changes it had meanwhile
 * show only in its final fields.
 */
import { MT5_ORDER_STATE, type Mt5Deal, type Mt5Event, type Mt5EventItem, type Mt5Order, type Mt5Position, type Mt5User } from "../mt5/native.ts";

export interface VendorReads {
  /** The server's clock now, in server-time milliseconds (UTC plus the server's zone). */
  serverNowMs(): number;
  positions(): Promise<Mt5Position[]>;
  /** Every deal between `fromSeconds` and `toSeconds` (server time, both included). */
  deals(fromSeconds: number, toSeconds: number): Promise<Mt5Deal[]>;
  /** The accounts of these logins, as the connector serves them. */
  accounts(logins: string[]): Promise<Mt5User[]>;
  /** Every open pending order. */
  orders(): Promise<Mt5Order[]>;
  /** Every order that left the book between `fromSeconds` and `toSeconds` (server time, both included). */
  historyOrders(fromSeconds: number, toSeconds: number): Promise<Mt5Order[]>;
}

export interface VendorPoll {
  /** The changes since the previous poll; null when nothing changed. */
  event: Mt5Event | null;
  /** Something happened that polling could not follow: consumers must resync. */
  gap: boolean;
}

/** How far before the newest deal seen deals are read again: a deal may be stored a moment late. */
const OVERLAP_MS = 60_000;
/** How far past the estimated server time deals are asked for (seconds): clocks differ. */
const FUTURE_S = 86_400;
/** Polls a closed position waits for its exit deal before it is reported as a gap. */
const MAX_WAIT_FOR_EXIT = 5;
/** Accounts read again per poll (100 a request); more is a gap, and the consumers read them all. */
const MAX_ACCOUNTS_PER_POLL = 2_000;
/** MT5 deal entries that close (part of) a position: out, in/out, out by. */
const EXIT_ENTRIES = new Set([1, 2, 3]);

export class VendorEventPoller {
  private positions = new Map<string, Mt5Position>();
  /** Deal tickets already reported, with their time, kept while they can come back in the overlap. */
  private readonly seen = new Map<string, number>();
  /** Exit deals held back because the position list does not show their effect yet: polls waited. */
  private readonly held = new Map<string, number>();
  /** Positions gone from the list whose exit deal has not shown yet: polls waited. */
  private readonly waiting = new Map<string, number>();
  /** The newest deal time seen, in the server's own clock; deals are read from a minute before it. */
  private watermarkMs = 0;
  private started = false;
  /** Accounts this connector changed: the next poll reports them (changes made elsewhere show with their next deal). */
  private readonly touched = new Set<string>();
  private orders = new Map<string, Mt5Order>();
  /** Orders gone from the book already reported, with the time they left it, kept while they can come back in the overlap. */
  private readonly finished = new Map<string, number>();
  /** Open orders no longer listed whose history record (or, filled, whose position) has not shown yet: polls waited. */
  private readonly ordersWaiting = new Map<string, number>();
  /** The newest time an order left the book, in the server's own clock. */
  private ordersWatermarkMs = 0;

  /** `reads` may change between polls (a new session after a reconnect); what was seen is kept. */
  constructor(private reads: VendorReads) {}

  touch(login: string): void {
    this.touched.add(login);
  }

  use(reads: VendorReads): void {
    this.reads = reads;
  }

  /** The starting point, once: what is open now, and the deals of the last minute, are known, not news. */
  async start(): Promise<void> {
    if (this.started) return;
    const now = this.reads.serverNowMs();
    this.positions = new Map((await this.reads.positions()).map((p) => [p.Position, p]));
    for (const deal of await this.reads.deals(Math.floor((now - OVERLAP_MS) / 1000), Math.ceil(now / 1000) + FUTURE_S)) this.seen.set(deal.Deal, deal.TimeMsc);
    this.watermarkMs = Math.max(now, ...this.seen.values());
    this.orders = new Map((await this.reads.orders()).map((o) => [o.Order, o]));
    this.ordersWatermarkMs = now;
    this.started = true;
  }

  async poll(): Promise<VendorPoll> {
    const listed = new Map((await this.reads.positions()).map((p) => [p.Position, p]));
    // Read after the positions: every deal behind the list is in it. The upper bound is far ahead,
    // so neither clock's skew hides a deal.
    const fromMs = this.watermarkMs - OVERLAP_MS;
    const read = await this.reads.deals(Math.floor(fromMs / 1000), Math.ceil(this.reads.serverNowMs() / 1000) + FUTURE_S);
    const deals: Mt5Deal[] = [];
    for (const deal of read.sort((a, b) => a.TimeMsc - b.TimeMsc || Number(a.Deal) - Number(b.Deal))) {
      if (this.seen.has(deal.Deal)) continue;
      // An exit whose position the list still shows unchanged was made after the list was read:
      // it waits for the next poll, which shows both.
      const before = this.positions.get(deal.PositionID);
      const now = listed.get(deal.PositionID);
      if (EXIT_ENTRIES.has(deal.Entry) && before && now && Number(now.Volume) >= Number(before.Volume)) {
        const waited = (this.held.get(deal.Deal) ?? 0) + 1;
        if (waited <= MAX_WAIT_FOR_EXIT) {
          this.held.set(deal.Deal, waited);
          continue;
        }
      }
      this.held.delete(deal.Deal);
      deals.push(deal);
      this.seen.set(deal.Deal, deal.TimeMsc);
      this.watermarkMs = Math.max(this.watermarkMs, deal.TimeMsc);
    }
    for (const [ticket, time] of this.seen) if (time < fromMs) this.seen.delete(ticket);

    let gap = false;
    const items: Mt5EventItem[] = deals.map((deal) => ({ Type: "DealAdd", Deal: deal }));
    const exits = new Set(deals.filter((d) => EXIT_ENTRIES.has(d.Entry)).map((d) => d.PositionID));
    for (const [id, position] of listed) {
      const before = this.positions.get(id);
      if (!before) items.push({ Type: "PositionAdd", Position: position });
      else if (changed(before, position)) items.push({ Type: "PositionUpdate", Position: position });
    }
    const next = new Map(listed);
    for (const [id, position] of this.positions) {
      if (listed.has(id)) continue;
      if (exits.has(id)) {
        this.waiting.delete(id);
        items.push({ Type: "PositionDelete", Position: position });
        continue;
      }
      const waited = (this.waiting.get(id) ?? 0) + 1;
      if (waited > MAX_WAIT_FOR_EXIT) {
        this.waiting.delete(id);
        gap = true;
        continue;
      }
      // Not closed yet as far as the stream can tell: it stays known until its exit deal shows.
      this.waiting.set(id, waited);
      next.set(id, position);
    }
    this.positions = next;

    const orders = await this.pollOrders(items);
    items.unshift(...orders.items);
    gap ||= orders.gap;

    const touched = [...new Set([...this.touched, ...deals.map((d) => d.Login)])];
    this.touched.clear();
    if (touched.length > MAX_ACCOUNTS_PER_POLL) gap = true;
    else if (touched.length > 0) for (const user of await this.reads.accounts(touched)) items.push({ Type: "UserUpdate", User: user });

    return { event: items.length > 0 ? { TimeMsc: this.reads.serverNowMs(), Items: items } : null, gap };
  }

  /**
   * Orders, read after the positions: a fill's position is in this event's PositionAdd, or the
   * order waits a poll for it (a fill between the two reads).
   */
  private async pollOrders(items: Mt5EventItem[]): Promise<{ items: Mt5EventItem[]; gap: boolean }> {
    const open = new Map((await this.reads.orders()).map((o) => [o.Order, o]));
    const fromMs = this.ordersWatermarkMs - OVERLAP_MS;
    const history = await this.reads.historyOrders(Math.floor(fromMs / 1000), Math.ceil(this.reads.serverNowMs() / 1000) + FUTURE_S);
    const added = new Set(items.flatMap((i) => (i.Type === "PositionAdd" ? [i.Position.Position] : [])));
    const out: Mt5EventItem[] = [];
    let gap = false;
    const next = new Map<string, Mt5Order>();
    const wait = (order: Mt5Order, known: Mt5Order | undefined) => {
      const waited = (this.ordersWaiting.get(order.Order) ?? 0) + 1;
      if (waited > MAX_WAIT_FOR_EXIT) {
        this.ordersWaiting.delete(order.Order);
        this.finished.set(order.Order, order.TimeDoneMsc);
        gap = true;
      } else {
        this.ordersWaiting.set(order.Order, waited);
        if (known) next.set(order.Order, known);
      }
    };
    for (const done of history.sort((a, b) => a.TimeDoneMsc - b.TimeDoneMsc || Number(a.Order) - Number(b.Order))) {
      if (this.finished.has(done.Order) || open.has(done.Order)) continue;
      const known = this.orders.get(done.Order);
      if (done.State === MT5_ORDER_STATE.filled && !added.has(done.PositionID)) {
        wait(done, known);
        continue;
      }
      this.ordersWaiting.delete(done.Order);
      if (!known)
        out.push({ Type: "OrderAdd", Order: { ...done, State: MT5_ORDER_STATE.placed, TimeDoneMsc: 0, PositionID: "0", VolumeCurrent: done.VolumeInitial } });
      out.push({ Type: "OrderDelete", Order: done });
      this.finished.set(done.Order, done.TimeDoneMsc);
      this.ordersWatermarkMs = Math.max(this.ordersWatermarkMs, done.TimeDoneMsc);
    }
    for (const [ticket, time] of this.finished) if (time < fromMs) this.finished.delete(ticket);
    for (const [id, order] of open) {
      const before = this.orders.get(id);
      if (!before) out.push({ Type: "OrderAdd", Order: order });
      else if (orderChanged(before, order)) out.push({ Type: "OrderUpdate", Order: order });
      next.set(id, order);
    }
    // Gone from the book, its history record not in sight yet.
    for (const [id, order] of this.orders) if (!open.has(id) && !next.has(id) && !this.finished.has(id)) wait(order, order);
    this.orders = next;
    return { items: out, gap };
  }
}

function orderChanged(a: Mt5Order, b: Mt5Order): boolean {
  return (
    a.PriceOrder !== b.PriceOrder || a.PriceSL !== b.PriceSL || a.PriceTP !== b.PriceTP || a.TimeExpiration !== b.TimeExpiration || a.TypeTime !== b.TypeTime
  );
}

function changed(a: Mt5Position, b: Mt5Position): boolean {
  return (
    a.Volume !== b.Volume || a.PriceSL !== b.PriceSL || a.PriceTP !== b.PriceTP || a.PriceOpen !== b.PriceOpen || a.Symbol !== b.Symbol || a.Action !== b.Action
  );
}
