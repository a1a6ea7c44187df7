/**
 * MT4 trade records ↔ positions, deals and events.
 *
 * MT4 has tickets, not deals. Toolbox shows a trade as an entry deal "<ticket>:in" and, once
 * closed, an exit deal "<ticket>:out". A partial close in MT4 closes the ticket for the closed
 * part (comment "to #new") and opens a new ticket for the rest (comment "from #old"); the new
 * ticket has no entry deal of its own, and the root ticket's entry deal carries the volume and
 * commission of the whole chain, which is what was really bought or sold.
 */
import {
  entryDeal,
  exitDeal,
  lotsToVolume,
  moneyToNumber,
  roundToMinor,
  withoutCommission,
  type Account,
  type ClosedPositionRecord,
  type Deal,
  type PositionRecord,
  type TradeReason,
  type UnsequencedTradeEvent,
} from "../../../core/trading/index.ts";
import type { Codec, PlatformCodec, RecordedTradeEvent } from "../wire/codec.ts";
import { codeTable, numericId, priceOrNull, priceOrZero, volumeAsLots } from "../wire/convert.ts";
import { mt4Ids, reissuedFrom, reissuedTo } from "./ids.ts";
import {
  isMarketTrade,
  isPendingOrder,
  MT4_ACTIVATION,
  MT4_CMD,
  MT4_REASON,
  type Mt4Native,
  type Mt4Pump,
  type Mt4TradeRecord,
  type Mt4UserRecord,
} from "./native.ts";
import type { Mt4OrderCodecs } from "./orders.ts";

export const mt4Reason = codeTable(MT4_REASON, "trade reason");
const activation = codeTable(MT4_ACTIVATION, "activation");

type TimeCodec = Codec<number, number>;
type TradeCodecs = Pick<PlatformCodec<Mt4Native>, "position" | "history" | "event">;

export function mt4TradeCodecs(time: TimeCodec, account: Codec<Account, Mt4UserRecord>, orders: Mt4OrderCodecs): TradeCodecs {
  const record = (p: PositionRecord): Mt4TradeRecord => ({
    order: numericId(p.id, "Ticket"),
    login: numericId(p.login, "Login"),
    symbol: p.symbol,
    cmd: p.side === "buy" ? MT4_CMD.buy : MT4_CMD.sell,
    volume: volumeAsLots(p.volume, "MT4"),
    open_time: time.encode(p.openTime),
    open_price: p.openPrice,
    close_time: 0,
    close_price: p.currentPrice,
    sl: priceOrZero(p.sl),
    tp: priceOrZero(p.tp),
    commission: moneyToNumber(p.commission),
    storage: moneyToNumber(p.swap),
    profit: moneyToNumber(p.profit),
    magic: 0,
    comment: p.comment,
    reason: mt4Reason.encode(p.reason),
    activation: MT4_ACTIVATION.none,
    close_reason: 0,
    expiration: 0,
  });
  const closedRecord = (c: ClosedPositionRecord): Mt4TradeRecord => ({
    ...record(c),
    close_time: time.encode(c.closeTime),
    close_price: c.closePrice,
    ...encodeCloseReason(c.closeReason),
  });
  const position = (r: Mt4TradeRecord): PositionRecord => {
    const previous = reissuedFrom(r.comment);
    return {
      id: mt4Ids.position(r.order),
      login: String(r.login),
      symbol: r.symbol,
      side: sideOf(r),
      volume: lotsToVolume(r.volume),
      openTime: time.decode(r.open_time),
      openPrice: r.open_price,
      currentPrice: r.close_price,
      sl: priceOrNull(r.sl),
      tp: priceOrNull(r.tp),
      profit: roundToMinor(r.profit),
      swap: roundToMinor(r.storage),
      commission: roundToMinor(r.commission),
      comment: r.comment,
      reason: mt4Reason.decode(r.reason),
      previousId: previous === null ? null : mt4Ids.position(previous),
      native: { platform: "MT4", ticket: r.order },
    };
  };
  const closed = (r: Mt4TradeRecord): ClosedPositionRecord => ({
    ...position(r),
    closeTime: time.decode(r.close_time),
    closePrice: r.close_price,
    closeReason: decodeCloseReason(r),
  });
  const entry = (p: PositionRecord, r: Mt4TradeRecord) =>
    entryDeal(p, mt4Ids.entryDeal(r.order), { platform: "MT4", ticket: r.order, cmd: r.cmd, entry: "in" });
  const exit = (r: Mt4TradeRecord) => exitDeal(closed(r), mt4Ids.exitDeal(r.order), { platform: "MT4", ticket: r.order, cmd: r.cmd, entry: "out" });

  const moneyRecord = (d: Deal): Mt4TradeRecord => ({
    ...EMPTY_RECORD,
    order: numericId(d.id, "Ticket"),
    login: numericId(d.login, "Login"),
    cmd: d.action === "credit" ? MT4_CMD.credit : MT4_CMD.balance,
    open_time: time.encode(d.time),
    close_time: time.encode(d.time),
    profit: moneyToNumber(d.profit),
    comment: d.comment,
    reason: mt4Reason.encode(d.reason),
  });
  const moneyDeal = (r: Mt4TradeRecord): Deal => ({
    id: mt4Ids.moneyDeal(r.order),
    login: String(r.login),
    time: time.decode(r.open_time),
    action: r.cmd === MT4_CMD.credit ? "credit" : "balance",
    entry: null,
    positionId: null,
    symbol: null,
    volume: 0,
    price: 0,
    profit: roundToMinor(r.profit),
    commission: 0,
    swap: 0,
    comment: r.comment,
    reason: mt4Reason.decode(r.reason),
    native: { platform: "MT4", ticket: r.order, cmd: r.cmd, entry: null },
  });
  const isMoney = (r: Mt4TradeRecord) => r.cmd === MT4_CMD.balance || r.cmd === MT4_CMD.credit;

  /** Entry deals of every chain whose root is among the records. */
  const chainEntries = (trades: Mt4TradeRecord[]): Deal[] => {
    const byTicket = new Map(trades.map((r) => [r.order, r]));
    // A ticket partly closed twice loses its "from #" comment to "to #", so a link from another
    // record also marks it as a continuation, not a root.
    const continued = new Set(trades.flatMap((r) => [reissuedTo(r.comment) ?? []].flat()));
    const deals: Deal[] = [];
    for (const root of trades) {
      if (reissuedFrom(root.comment) !== null || continued.has(root.order)) continue;
      const total = position(root);
      const seen = new Set([root.order]);
      for (let next = reissuedTo(root.comment); next !== null && !seen.has(next);) {
        const member = byTicket.get(next);
        if (!member) break;
        seen.add(next);
        total.volume += lotsToVolume(member.volume);
        total.commission += roundToMinor(member.commission);
        next = reissuedTo(member.comment);
      }
      deals.push(entry(total, root));
    }
    return deals;
  };

  return {
    position: { encode: record, decode: (r) => withoutCommission(position(r)) },
    history: {
      withOpenPositions: true,
      encode: (slice) => [...slice.closed.map((t) => closedRecord(t.position)), ...slice.deals.filter((d) => d.entry === null).map(moneyRecord)],
      // Pending orders (deleted or expired ones in the history, waiting ones among the open) are no deals.
      decode: (records, open) => [
        ...records.filter(isMoney).map(moneyDeal),
        ...records.filter(isMarketTrade).map(exit),
        ...chainEntries([...records.filter(isMarketTrade), ...open.filter(isMarketTrade)]),
      ],
    },
    event: {
      encode: (events) => ({ time: time.encode(events[0]?.time ?? 0), pumps: events.flatMap(toPumps) }),
      decode: (event) => event.pumps.flatMap((pump) => fromPump(pump, time.decode(event.time), event.pumps)),
    },
  };

  function toPumps(e: RecordedTradeEvent): Mt4Pump[] {
    switch (e.type) {
      case "positionOpened":
        return [{ type: "trade", transaction: "add", trade: record(e.position) }];
      case "positionModified":
        if (e.change !== "stops") throw new Error("MT4 re-issues tickets on partial close; it never reduces a ticket");
        return [{ type: "trade", transaction: "update", trade: record(e.position) }];
      case "positionClosed":
        return [{ type: "trade", transaction: "close", trade: closedRecord(e.position) }];
      case "dealAdded":
        // Entry and exit deals are implied by the trade record; only money records travel.
        return e.deal.entry === null ? [{ type: "trade", transaction: "add", trade: moneyRecord(e.deal) }] : [];
      case "accountChanged":
        return [{ type: "user", transaction: "update", user: account.encode(e.account) }];
      case "orderPlaced":
        return [{ type: "trade", transaction: "add", trade: orders.pendingOrder.encode(e.order) }];
      case "orderModified":
        return [{ type: "trade", transaction: "update", trade: orders.pendingOrder.encode(e.order) }];
      // Deleted, expired or activated: the order's record closes; an activation's market trade follows (positionOpened).
      case "orderCancelled":
      case "orderFilled":
        return [{ type: "trade", transaction: "close", trade: { ...orders.pendingOrder.encode(e.order), close_time: time.encode(e.time) } }];
    }
  }

  /** The market trade that a pending order's closing in the same event activated, if any. */
  function activated(ticket: number, pumps: Mt4Pump[]) {
    return pumps.find(
      (p): p is Extract<Mt4Pump, { type: "trade" }> => p.type === "trade" && p.transaction === "add" && p.trade.order === ticket && isMarketTrade(p.trade),
    );
  }

  function wasPending(ticket: number, pumps: Mt4Pump[]) {
    return pumps.some((p) => p.type === "trade" && p.transaction === "close" && p.trade.order === ticket && isPendingOrder(p.trade));
  }

  function fromOrderPump(pump: Extract<Mt4Pump, { type: "trade" }>, at: number, pumps: Mt4Pump[]): UnsequencedTradeEvent[] {
    const order = orders.pendingOrder.decode(pump.trade);
    const login = order.login;
    if (pump.transaction === "add") return [{ type: "orderPlaced", time: at, login, order }];
    if (pump.transaction === "update") return [{ type: "orderModified", time: at, login, order }];
    const fill = activated(pump.trade.order, pumps);
    if (fill) return [{ type: "orderFilled", time: at, login, order, position: { ...withoutCommission(position(fill.trade)), orderId: order.id } }];
    const expired = pump.trade.expiration !== 0 && pump.trade.close_time >= pump.trade.expiration;
    return [{ type: "orderCancelled", time: at, login, order, cause: expired ? "expired" : "cancelled" }];
  }

  function fromPump(pump: Mt4Pump, at: number, pumps: Mt4Pump[]): UnsequencedTradeEvent[] {
    if (pump.type === "user") {
      const changed = account.decode(pump.user);
      return [{ type: "accountChanged", time: at, login: changed.login, account: changed }];
    }
    const r = pump.trade;
    const login = String(r.login);
    if (isMoney(r)) return [{ type: "dealAdded", time: at, login, deal: moneyDeal(r) }];
    if (isPendingOrder(r)) return fromOrderPump(pump, at, pumps);
    if (!isMarketTrade(r)) throw new Error(`MT4 ticket ${r.order} has unknown command ${r.cmd}`);
    if (pump.transaction === "update") return [{ type: "positionModified", time: at, login, position: withoutCommission(position(r)), change: "stops" }];
    if (pump.transaction === "close")
      return [
        { type: "positionClosed", time: at, login, position: withoutCommission(closed(r)) },
        { type: "dealAdded", time: at, login, deal: exit(r) },
      ];
    const opened = position(r);
    const fromOrder = wasPending(r.order, pumps) ? { orderId: opened.id } : {};
    const events: UnsequencedTradeEvent[] = [{ type: "positionOpened", time: at, login, position: { ...withoutCommission(opened), ...fromOrder } }];
    if (opened.previousId === null) events.push({ type: "dealAdded", time: at, login, deal: entry(opened, r) });
    return events;
  }
}

const EMPTY_RECORD: Mt4TradeRecord = {
  order: 0,
  login: 0,
  symbol: "",
  cmd: 0,
  volume: 0,
  open_time: 0,
  open_price: 0,
  close_time: 0,
  close_price: 0,
  sl: 0,
  tp: 0,
  commission: 0,
  storage: 0,
  profit: 0,
  magic: 0,
  comment: "",
  reason: MT4_REASON.dealer,
  activation: MT4_ACTIVATION.none,
  close_reason: 0,
  expiration: 0,
};

/** OP_BUY or OP_SELL; any other command is not a position and is never read as one. */
function sideOf(r: Mt4TradeRecord): "buy" | "sell" {
  if (r.cmd === MT4_CMD.buy) return "buy";
  if (r.cmd === MT4_CMD.sell) return "sell";
  const name = Object.entries(MT4_CMD).find(([, code]) => code === r.cmd)?.[0];
  throw new Error(`MT4 ticket ${r.order} is ${name ? `a ${name} order` : `of unknown command ${r.cmd}`}, not a position`);
}

function encodeCloseReason(reason: TradeReason): Pick<Mt4TradeRecord, "activation" | "close_reason"> {
  if (reason === "sl" || reason === "tp" || reason === "stopOut") return { activation: activation.encode(reason), close_reason: 0 };
  return { activation: MT4_ACTIVATION.none, close_reason: mt4Reason.encode(reason) };
}

function decodeCloseReason(r: Mt4TradeRecord): TradeReason {
  if (r.activation !== MT4_ACTIVATION.none) return activation.decode(r.activation) as TradeReason;
  return mt4Reason.decode(r.close_reason);
}
