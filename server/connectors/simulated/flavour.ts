/**
 * What differs between the simulated MT4, MT5 and Match-Trader servers inside the one engine:
 * how ids are handed out (MT4 tickets, MT5 deal/order/position numbers, Match-Trader UUIDs),
 * the resolution of time stamps, and what a partial close does (MT4 re-issues the ticket, the
 * others keep the position). Everything else about a platform lives in its codec.
 */
import type {
  NativeAccountRef,
  NativeDealRef,
  NativeOrderRef,
  NativePositionRef,
  PendingOrder,
  PositionRecord,
  TradePlatformType,
} from "../../../core/trading/index.ts";
import { mt4Ids } from "../mt4/ids.ts";
import { MT4_CMD } from "../mt4/native.ts";
import { matchTraderIds } from "../matchTrader/ids.ts";
import type { Random } from "./random.ts";

export interface Issued<Ref> {
  id: string;
  native: Ref;
}

export interface EngineFlavour {
  platform: TradePlatformType;
  /** MT4 stamps whole seconds; MT5 and Match-Trader milliseconds. */
  timeUnitMs: number;
  /** Registration and last access: whole seconds on MetaTrader (IMTUser, UserRecord), ms on Match-Trader. */
  accountTimeUnitMs: number;
  partialClose: "reissue" | "reduce";
  firstLogin: number;
  accountRef(login: number, offerId: string): NativeAccountRef;
  newPosition(): Issued<NativePositionRef>;
  newOrder(): Issued<NativeOrderRef>;
  /** The position a filled order opens: MT4 keeps the ticket, an MT5 position takes the order's ticket, Match-Trader makes a new UUID. */
  positionOf(order: PendingOrder): Issued<NativePositionRef>;
  entryDeal(position: PositionRecord): Issued<NativeDealRef>;
  exitDeal(position: PositionRecord): Issued<NativeDealRef>;
  moneyDeal(credit: boolean): Issued<NativeDealRef>;
  /**
   * The numbers it issues next, as data (not in closures): a simulated server's persisted state
   * (./persistence/) carries them, so a restored server goes on from where it stopped.
   */
  counters: Record<string, number>;
}

export function createFlavour(platform: TradePlatformType, random: Random): EngineFlavour {
  switch (platform) {
    case "MT4":
      return mt4Flavour();
    case "MT5":
      return mt5Flavour();
    case "MatchTrader":
      return matchTraderFlavour(random);
  }
}

function ticketOf(position: PositionRecord): number {
  if (position.native.platform !== "MT4") throw new Error("Not an MT4 position");
  return position.native.ticket;
}

function mt4Flavour(): EngineFlavour {
  const counters = { ticket: 1_000_000 };
  const cmd = (p: PositionRecord) => (p.side === "buy" ? MT4_CMD.buy : MT4_CMD.sell);
  return {
    platform: "MT4",
    timeUnitMs: 1000,
    accountTimeUnitMs: 1000,
    partialClose: "reissue",
    firstLogin: 10_001,
    counters,
    accountRef: (login) => ({ platform: "MT4", login }),
    newPosition() {
      const t = ++counters.ticket;
      return { id: mt4Ids.position(t), native: { platform: "MT4", ticket: t } };
    },
    newOrder() {
      const t = ++counters.ticket;
      return { id: mt4Ids.position(t), native: { platform: "MT4", ticket: t } };
    },
    positionOf(order) {
      if (order.native.platform !== "MT4") throw new Error("Not an MT4 order");
      return { id: order.id, native: { platform: "MT4", ticket: order.native.ticket } };
    },
    entryDeal: (p) => ({
      id: mt4Ids.entryDeal(ticketOf(p)),
      native: { platform: "MT4", ticket: ticketOf(p), cmd: cmd(p), entry: "in" },
    }),
    exitDeal: (p) => ({
      id: mt4Ids.exitDeal(ticketOf(p)),
      native: { platform: "MT4", ticket: ticketOf(p), cmd: cmd(p), entry: "out" },
    }),
    moneyDeal(credit) {
      const t = ++counters.ticket;
      return {
        id: mt4Ids.moneyDeal(t),
        native: { platform: "MT4", ticket: t, cmd: credit ? MT4_CMD.credit : MT4_CMD.balance, entry: null },
      };
    },
  };
}

function mt5Flavour(): EngineFlavour {
  const counters = { order: 5_000_000, deal: 8_000_000 };
  const positionOf = (p: PositionRecord) => {
    if (p.native.platform !== "MT5") throw new Error("Not an MT5 position");
    return p.native.position;
  };
  return {
    platform: "MT5",
    timeUnitMs: 1,
    accountTimeUnitMs: 1000,
    partialClose: "reduce",
    firstLogin: 100_001,
    counters,
    accountRef: (login) => ({ platform: "MT5", login }),
    // An MT5 position takes the ticket of the order that opened it.
    newPosition() {
      const o = ++counters.order;
      return { id: String(o), native: { platform: "MT5", position: o } };
    },
    newOrder() {
      const o = ++counters.order;
      return { id: String(o), native: { platform: "MT5", order: o } };
    },
    positionOf(pending) {
      if (pending.native.platform !== "MT5") throw new Error("Not an MT5 order");
      return { id: pending.id, native: { platform: "MT5", position: pending.native.order } };
    },
    entryDeal(p) {
      const d = ++counters.deal;
      return { id: String(d), native: { platform: "MT5", deal: d, order: positionOf(p), position: positionOf(p) } };
    },
    exitDeal(p) {
      const d = ++counters.deal;
      return { id: String(d), native: { platform: "MT5", deal: d, order: ++counters.order, position: positionOf(p) } };
    },
    moneyDeal() {
      const d = ++counters.deal;
      return { id: String(d), native: { platform: "MT5", deal: d, order: 0, position: null } };
    },
  };
}

function matchTraderFlavour(random: Random): EngineFlavour {
  return {
    platform: "MatchTrader",
    timeUnitMs: 1,
    accountTimeUnitMs: 1,
    partialClose: "reduce",
    firstLogin: 300_001,
    counters: {},
    accountRef: (_login, offerId) => ({ platform: "MatchTrader", accountId: random.uuid(), offerId }),
    newPosition() {
      const id = random.uuid();
      return { id, native: { platform: "MatchTrader", positionId: id } };
    },
    newOrder() {
      const id = random.uuid();
      return { id, native: { platform: "MatchTrader", orderId: id } };
    },
    positionOf() {
      const id = random.uuid();
      return { id, native: { platform: "MatchTrader", positionId: id } };
    },
    entryDeal: (p) => ({
      id: matchTraderIds.entryDeal(p.id),
      native: { platform: "MatchTrader", positionId: p.id, closeId: null },
    }),
    exitDeal(p) {
      const closeId = random.uuid();
      return { id: closeId, native: { platform: "MatchTrader", positionId: p.id, closeId } };
    },
    moneyDeal() {
      const ledgerId = random.uuid();
      return { id: ledgerId, native: { platform: "MatchTrader", ledgerId } };
    },
  };
}
