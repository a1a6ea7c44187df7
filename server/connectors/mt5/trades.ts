/**
 * MT5 positions, deals and events. MT5 reports deals itself, so history is its deals one to one;
 * a closing shows as a PositionDelete with the exit DealAdd beside it in the same event.
 */
import {
  moneyFromDecimal,
  moneyToDecimal,
  type Account,
  type Deal,
  type Position,
  type PositionRecord,
  type UnsequencedTradeEvent,
} from "../../../core/trading/index.ts";
import type { Codec, PlatformCodec, RecordedTradeEvent } from "../wire/codec.ts";
import { splitTag } from "../operationOnce.ts";
import { codeTable, numericId, priceOrNull, priceOrZero } from "../wire/convert.ts";
import {
  MT5_DEAL_ACTION,
  MT5_DEAL_ENTRY,
  MT5_ORDER_STATE,
  MT5_REASON,
  type Mt5Deal,
  type Mt5EventItem,
  type Mt5Native,
  type Mt5Position,
  type Mt5User,
} from "./native.ts";
import type { Mt5OrderCodecs } from "./orders.ts";

export const mt5Reason = codeTable(MT5_REASON, "trade reason");
const dealAction = codeTable(MT5_DEAL_ACTION, "deal action");

type TradeCodecs = Pick<PlatformCodec<Mt5Native>, "position" | "history" | "event">;

export function mt5TradeCodecs(time: Codec<number, number>, account: Codec<Account, Mt5User>, orders: Mt5OrderCodecs): TradeCodecs {
  const id = (value: string, what: string) => String(numericId(value, what));
  const encodePosition = (p: Position): Mt5Position => ({
    Position: id(p.id, "Position"),
    Login: id(p.login, "Login"),
    Symbol: p.symbol,
    Action: p.side === "buy" ? 0 : 1,
    TimeCreateMsc: time.encode(p.openTime),
    PriceOpen: p.openPrice,
    PriceCurrent: p.currentPrice,
    PriceSL: priceOrZero(p.sl),
    PriceTP: priceOrZero(p.tp),
    Volume: String(p.volume),
    Profit: moneyToDecimal(p.profit),
    Storage: moneyToDecimal(p.swap),
    Comment: p.tag === undefined ? p.comment : p.comment === "" ? p.tag : `${p.comment} ${p.tag}`,
    Reason: mt5Reason.encode(p.reason),
  });
  const decodePosition = (p: Mt5Position): Position => {
    const { comment, tag } = splitTag(p.Comment);
    return {
      id: p.Position,
      login: p.Login,
      symbol: p.Symbol,
      side: p.Action === 0 ? "buy" : "sell",
      volume: Number(p.Volume),
      openTime: time.decode(p.TimeCreateMsc),
      openPrice: p.PriceOpen,
      currentPrice: p.PriceCurrent,
      sl: priceOrNull(p.PriceSL),
      tp: priceOrNull(p.PriceTP),
      profit: moneyFromDecimal(p.Profit),
      swap: moneyFromDecimal(p.Storage),
      comment,
      ...(tag === null ? {} : { tag }),
      reason: mt5Reason.decode(p.Reason),
      previousId: null,
      native: { platform: "MT5", position: Number(p.Position) },
    };
  };
  const encodeDeal = (d: Deal): Mt5Deal => ({
    Deal: id(d.id, "Deal"),
    Order: String(d.native.platform === "MT5" ? d.native.order : 0),
    PositionID: d.positionId === null ? "0" : id(d.positionId, "Position"),
    Login: id(d.login, "Login"),
    Action: dealAction.encode(d.action),
    Entry: d.entry === "out" ? MT5_DEAL_ENTRY.out : MT5_DEAL_ENTRY.in,
    Symbol: d.symbol ?? "",
    Volume: String(d.volume),
    Price: d.price,
    Profit: moneyToDecimal(d.profit),
    Commission: moneyToDecimal(d.commission),
    Storage: moneyToDecimal(d.swap),
    Comment: d.comment,
    Reason: mt5Reason.encode(d.reason),
    TimeMsc: time.encode(d.time),
  });
  const decodeDeal = (d: Mt5Deal): Deal => {
    const action = dealAction.decode(d.Action);
    const money = action === "balance" || action === "credit";
    return {
      id: d.Deal,
      login: d.Login,
      time: time.decode(d.TimeMsc),
      action,
      entry: money ? null : d.Entry === MT5_DEAL_ENTRY.out ? "out" : "in",
      positionId: d.PositionID === "0" ? null : d.PositionID,
      symbol: d.Symbol === "" ? null : d.Symbol,
      volume: Number(d.Volume),
      price: d.Price,
      profit: moneyFromDecimal(d.Profit),
      commission: moneyFromDecimal(d.Commission),
      swap: moneyFromDecimal(d.Storage),
      // Toolbox's tag (an order's or a money operation's) is its own business, not the comment.
      comment: splitTag(d.Comment).comment,
      reason: mt5Reason.decode(d.Reason),
      native: {
        platform: "MT5",
        deal: Number(d.Deal),
        order: Number(d.Order),
        position: d.PositionID === "0" ? null : Number(d.PositionID),
      },
    };
  };

  function toItem(e: RecordedTradeEvent): Mt5EventItem {
    switch (e.type) {
      case "positionOpened":
        return { Type: "PositionAdd", Position: encodePosition(e.position) };
      case "positionModified":
        return { Type: "PositionUpdate", Position: encodePosition(e.position) };
      case "positionClosed":
        return { Type: "PositionDelete", Position: encodePosition(e.position) };
      case "dealAdded":
        return { Type: "DealAdd", Deal: encodeDeal(e.deal) };
      case "accountChanged":
        return { Type: "UserUpdate", User: account.encode(e.account) };
      case "orderPlaced":
        return { Type: "OrderAdd", Order: orders.pendingOrder.encode(e.order) };
      case "orderModified":
        return { Type: "OrderUpdate", Order: orders.pendingOrder.encode(e.order) };
      case "orderCancelled":
        return {
          Type: "OrderDelete",
          Order: orders.encodeOrder(e.order, e.cause === "expired" ? MT5_ORDER_STATE.expired : MT5_ORDER_STATE.canceled, e.time, null),
        };
      case "orderFilled":
        return { Type: "OrderDelete", Order: orders.encodeOrder(e.order, MT5_ORDER_STATE.filled, e.time, e.position.id) };
    }
  }

  function fromItems(items: Mt5EventItem[], at: number): UnsequencedTradeEvent[] {
    const deals = items.flatMap((i) => (i.Type === "DealAdd" ? [decodeDeal(i.Deal)] : []));
    const exitOf = (positionId: string) => deals.find((d) => d.positionId === positionId && d.entry === "out");
    // A filled order's position opens in the same event; it names the order.
    const filledBy = new Map<string, string>();
    for (const i of items) if (i.Type === "OrderDelete" && i.Order.State === MT5_ORDER_STATE.filled) filledBy.set(i.Order.PositionID, i.Order.Order);
    const opened = (p: Mt5Position): Position => {
      const position = decodePosition(p);
      const orderId = filledBy.get(position.id);
      return orderId === undefined ? position : { ...position, orderId };
    };
    return items.map((item): UnsequencedTradeEvent => {
      if ("Order" in item) {
        const order = orders.pendingOrder.decode(item.Order);
        if (item.Type === "OrderAdd") return { type: "orderPlaced", time: at, login: order.login, order };
        if (item.Type === "OrderUpdate") return { type: "orderModified", time: at, login: order.login, order };
        if (item.Order.State !== MT5_ORDER_STATE.filled)
          return { type: "orderCancelled", time: at, login: order.login, order, cause: item.Order.State === MT5_ORDER_STATE.expired ? "expired" : "cancelled" };
        const add = items.find((i) => i.Type === "PositionAdd" && i.Position.Position === item.Order.PositionID);
        if (!add || add.Type !== "PositionAdd") throw new Error(`MT5 order #${order.id} filled without its position`);
        return { type: "orderFilled", time: at, login: order.login, order, position: opened(add.Position) };
      }
      if (item.Type === "DealAdd") {
        const deal = decodeDeal(item.Deal);
        return { type: "dealAdded", time: at, login: deal.login, deal };
      }
      if (item.Type === "UserUpdate") {
        const changed = account.decode(item.User);
        return { type: "accountChanged", time: at, login: changed.login, account: changed };
      }
      const position = item.Type === "PositionAdd" ? opened(item.Position) : decodePosition(item.Position);
      const exit = exitOf(position.id);
      if (item.Type === "PositionAdd") return { type: "positionOpened", time: at, login: position.login, position };
      if (item.Type === "PositionUpdate")
        return { type: "positionModified", time: at, login: position.login, position, change: exit ? "partialClose" : "stops" };
      if (!exit) throw new Error(`MT5 PositionDelete for #${position.id} without its exit deal`);
      return {
        type: "positionClosed",
        time: at,
        login: position.login,
        position: { ...position, closeTime: exit.time, closePrice: exit.price, closeReason: exit.reason },
      };
    });
  }

  return {
    position: {
      encode: (p: PositionRecord) => encodePosition(p),
      decode: decodePosition,
    },
    history: {
      withOpenPositions: false,
      encode: (slice) => slice.deals.map(encodeDeal),
      decode: (records) => records.map(decodeDeal),
    },
    event: {
      encode: (events) => ({ TimeMsc: time.encode(events[0]?.time ?? 0), Items: events.map(toItem) }),
      decode: (event) => fromItems(event.Items, time.decode(event.TimeMsc)),
    },
  };
}
