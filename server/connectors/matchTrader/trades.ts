/**
 * Match-Trader positions, closings, ledgers and events. Match-Trader reports open positions,
 * closed positions (one record per closing, so a partial close keeps the position's id) and
 * ledgers; Toolbox rebuilds the entry deal of a position from all its records.
 */
import {
  entryDeal,
  exitDeal,
  lotsToVolume,
  moneyFromDecimal,
  moneyToDecimal,
  withoutCommission,
  type Account,
  type ClosedPositionRecord,
  type Deal,
  type PositionRecord,
  type UnsequencedTradeEvent,
} from "../../../core/trading/index.ts";
import { balanceOperationType, signedAmount } from "../../../core/trading/index.ts";
import type { Codec, PlatformCodec, RecordedTradeEvent } from "../wire/codec.ts";
import { codeTable, volumeAsLots } from "../wire/convert.ts";
import { matchTraderIds } from "./ids.ts";
import type { MatchTraderNative, MtClosedPosition, MtEvent, MtLedger, MtPosition, MtTradingAccount } from "./native.ts";
import type { MatchTraderOrderCodecs } from "./orders.ts";

export const matchTraderReason = codeTable(
  {
    client: "CLIENT",
    mobile: "MOBILE",
    web: "WEB",
    expert: "EXPERT",
    dealer: "DEALER",
    api: "API",
    sl: "STOP_LOSS",
    tp: "TAKE_PROFIT",
    stopOut: "STOP_OUT",
  } as const,
  "trade reason",
);
const ledgerType = codeTable({ deposit: "DEPOSIT", withdrawal: "WITHDRAWAL", creditIn: "CREDIT_IN", creditOut: "CREDIT_OUT" } as const, "ledger type");

type TradeCodecs = Pick<PlatformCodec<MatchTraderNative>, "position" | "history" | "event">;

export function matchTraderTradeCodecs(time: Codec<number, string>, account: Codec<Account, MtTradingAccount>, orders: MatchTraderOrderCodecs): TradeCodecs {
  const encodePosition = (p: PositionRecord): MtPosition => ({
    id: p.id,
    login: p.login,
    instrument: p.symbol,
    side: p.side === "buy" ? "BUY" : "SELL",
    volume: volumeAsLots(p.volume, "Match-Trader"),
    openPrice: p.openPrice,
    currentPrice: p.currentPrice,
    stopLoss: p.sl,
    takeProfit: p.tp,
    profit: moneyToDecimal(p.profit),
    swap: moneyToDecimal(p.swap),
    commission: moneyToDecimal(p.commission),
    comment: p.comment,
    reason: matchTraderReason.encode(p.reason),
    openTime: time.encode(p.openTime),
  });
  const decodePosition = (p: MtPosition): PositionRecord => ({
    id: p.id,
    login: p.login,
    symbol: p.instrument,
    side: p.side === "BUY" ? "buy" : "sell",
    volume: lotsToVolume(p.volume),
    openTime: time.decode(p.openTime),
    openPrice: p.openPrice,
    currentPrice: p.currentPrice,
    sl: p.stopLoss,
    tp: p.takeProfit,
    profit: moneyFromDecimal(p.profit),
    swap: moneyFromDecimal(p.swap),
    commission: moneyFromDecimal(p.commission),
    comment: p.comment,
    reason: matchTraderReason.decode(p.reason),
    ...(p.tag === undefined ? {} : { tag: p.tag }),
    previousId: null,
    native: { platform: "MatchTrader", positionId: p.id },
  });
  const encodeClosed = (c: ClosedPositionRecord, closeId: string): MtClosedPosition => {
    const { currentPrice: _current, ...open } = encodePosition(c);
    return {
      ...open,
      kind: "CLOSED_POSITION",
      id: closeId,
      positionId: c.id,
      closePrice: c.closePrice,
      closeTime: time.encode(c.closeTime),
      closeReason: matchTraderReason.encode(c.closeReason),
    };
  };
  const decodeClosed = (c: MtClosedPosition): ClosedPositionRecord => ({
    ...decodePosition({ ...c, id: c.positionId, currentPrice: c.closePrice }),
    closeTime: time.decode(c.closeTime),
    closePrice: c.closePrice,
    closeReason: matchTraderReason.decode(c.closeReason),
  });
  const exit = (c: MtClosedPosition) => exitDeal(decodeClosed(c), c.id, { platform: "MatchTrader", positionId: c.positionId, closeId: c.id });
  const entry = (p: PositionRecord) => entryDeal(p, matchTraderIds.entryDeal(p.id), { platform: "MatchTrader", positionId: p.id, closeId: null });
  const closeIdOf = (deal: Deal) => {
    if (deal.native.platform !== "MatchTrader" || !("closeId" in deal.native) || !deal.native.closeId)
      throw new Error(`Deal ${deal.id} is not a Match-Trader closing`);
    return deal.native.closeId;
  };
  const encodeLedger = (d: Deal): MtLedger => ({
    kind: "LEDGER",
    id: d.id,
    login: d.login,
    type: ledgerType.encode(balanceOperationType(d.action === "credit", d.profit)),
    amount: moneyToDecimal(Math.abs(d.profit)),
    comment: d.comment,
    reason: matchTraderReason.encode(d.reason),
    time: time.encode(d.time),
  });
  const decodeLedger = (l: MtLedger): Deal => {
    const type = ledgerType.decode(l.type);
    return {
      id: l.id,
      login: l.login,
      time: time.decode(l.time),
      action: type === "creditIn" || type === "creditOut" ? "credit" : "balance",
      entry: null,
      positionId: null,
      symbol: null,
      volume: 0,
      price: 0,
      profit: signedAmount(type, moneyFromDecimal(l.amount)),
      commission: 0,
      swap: 0,
      comment: l.comment,
      reason: matchTraderReason.decode(l.reason),
      native: { platform: "MatchTrader", ledgerId: l.id },
    };
  };

  /** One entry deal per position: its open remainder and every closing summed. */
  const entries = (parts: PositionRecord[]): Deal[] => {
    const byPosition = new Map<string, PositionRecord>();
    for (const part of parts) {
      const total = byPosition.get(part.id);
      if (!total) byPosition.set(part.id, { ...part });
      else {
        total.volume += part.volume;
        total.commission += part.commission;
      }
    }
    return [...byPosition.values()].map(entry);
  };

  function toEvents(events: RecordedTradeEvent[]): MtEvent[] {
    const exitFor = (positionId: string) => {
      const found = events.find((e) => e.type === "dealAdded" && e.deal.positionId === positionId && e.deal.entry === "out");
      if (!found || found.type !== "dealAdded") throw new Error(`No exit deal for position ${positionId}`);
      return found.deal;
    };
    return events.flatMap((e): MtEvent[] => {
      const timestamp = time.encode(e.time);
      switch (e.type) {
        case "positionOpened":
          return [{ type: "POSITION_OPENED", timestamp, position: encodePosition(e.position) }];
        case "positionModified":
          if (e.change === "stops") return [{ type: "POSITION_UPDATED", timestamp, position: encodePosition(e.position) }];
          if (!e.closedPart) throw new Error("A partial close must say what was closed");
          return [
            {
              type: "POSITION_PARTIALLY_CLOSED",
              timestamp,
              position: encodePosition(e.position),
              closed: encodeClosed(e.closedPart, closeIdOf(exitFor(e.position.id))),
            },
          ];
        case "positionClosed":
          return [{ type: "POSITION_CLOSED", timestamp, closed: encodeClosed(e.position, closeIdOf(exitFor(e.position.id))) }];
        case "dealAdded":
          return e.deal.entry === null ? [{ type: "LEDGER_ADDED", timestamp, ledger: encodeLedger(e.deal) }] : [];
        case "accountChanged":
          return [{ type: "ACCOUNT_UPDATED", timestamp, account: account.encode(e.account) }];
        case "orderPlaced":
          return [{ type: "ORDER_CREATED", timestamp, order: orders.pendingOrder.encode(e.order) }];
        case "orderModified":
          return [{ type: "ORDER_UPDATED", timestamp, order: orders.pendingOrder.encode(e.order) }];
        case "orderCancelled":
          return [{ type: "ORDER_CANCELLED", timestamp, order: orders.pendingOrder.encode(e.order), expired: e.cause === "expired" }];
        case "orderFilled":
          return [{ type: "ORDER_FILLED", timestamp, order: orders.pendingOrder.encode(e.order), positionId: e.position.id }];
      }
    });
  }

  function fromEvent(e: MtEvent, batch: MtEvent[]): UnsequencedTradeEvent[] {
    const at = time.decode(e.timestamp);
    // A filled order's position opens in the same batch, and names it.
    const filledBy = (positionId: string) =>
      batch.find((x): x is Extract<MtEvent, { type: "ORDER_FILLED" }> => x.type === "ORDER_FILLED" && x.positionId === positionId)?.order.id;
    switch (e.type) {
      case "ORDER_CREATED":
      case "ORDER_UPDATED": {
        const order = orders.pendingOrder.decode(e.order);
        return [{ type: e.type === "ORDER_CREATED" ? "orderPlaced" : "orderModified", time: at, login: order.login, order }];
      }
      case "ORDER_CANCELLED": {
        const order = orders.pendingOrder.decode(e.order);
        return [{ type: "orderCancelled", time: at, login: order.login, order, cause: e.expired ? "expired" : "cancelled" }];
      }
      case "ORDER_FILLED": {
        const order = orders.pendingOrder.decode(e.order);
        const opened = batch.find((x): x is Extract<MtEvent, { type: "POSITION_OPENED" }> => x.type === "POSITION_OPENED" && x.position.id === e.positionId);
        if (!opened) throw new Error(`Match-Trader order ${order.id} filled without its position`);
        const position = { ...withoutCommission(decodePosition(opened.position)), orderId: order.id };
        return [{ type: "orderFilled", time: at, login: order.login, order, position }];
      }
      case "POSITION_OPENED": {
        const p = decodePosition(e.position);
        const orderId = filledBy(p.id);
        return [
          { type: "positionOpened", time: at, login: p.login, position: { ...withoutCommission(p), ...(orderId === undefined ? {} : { orderId }) } },
          { type: "dealAdded", time: at, login: p.login, deal: entry(p) },
        ];
      }
      case "POSITION_UPDATED": {
        const p = withoutCommission(decodePosition(e.position));
        return [{ type: "positionModified", time: at, login: p.login, position: p, change: "stops" }];
      }
      case "POSITION_PARTIALLY_CLOSED": {
        const p = withoutCommission(decodePosition(e.position));
        return [
          { type: "positionModified", time: at, login: p.login, position: p, change: "partialClose" },
          { type: "dealAdded", time: at, login: p.login, deal: exit(e.closed) },
        ];
      }
      case "POSITION_CLOSED": {
        const c = withoutCommission(decodeClosed(e.closed));
        return [
          { type: "positionClosed", time: at, login: c.login, position: c },
          { type: "dealAdded", time: at, login: c.login, deal: exit(e.closed) },
        ];
      }
      case "LEDGER_ADDED":
        return [{ type: "dealAdded", time: at, login: e.ledger.login, deal: decodeLedger(e.ledger) }];
      case "ACCOUNT_UPDATED": {
        const a = account.decode(e.account);
        return [{ type: "accountChanged", time: at, login: a.login, account: a }];
      }
    }
  }

  return {
    position: { encode: encodePosition, decode: (p) => withoutCommission(decodePosition(p)) },
    history: {
      withOpenPositions: true,
      encode: (slice) => [
        ...slice.closed.map((t) => encodeClosed(t.position, closeIdOf(t.exit))),
        ...slice.deals.filter((d) => d.entry === null).map(encodeLedger),
      ],
      decode: (records, open) => {
        const closings = records.filter((r): r is MtClosedPosition => r.kind === "CLOSED_POSITION");
        const ledgers = records.filter((r): r is MtLedger => r.kind === "LEDGER");
        return [...ledgers.map(decodeLedger), ...closings.map(exit), ...entries([...closings.map(decodeClosed), ...open.map(decodePosition)])];
      },
    },
    event: {
      encode: toEvents,
      decode: (events) => events.flatMap((e) => fromEvent(e, events)),
    },
  };
}
