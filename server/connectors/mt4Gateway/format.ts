/**
 * The MT4 manager gateway's wire (docs/mt4-gateway.md), shared by the connector and the local
 * protocol server. Records keep the shapes of server/connectors/mt4/native.ts, with the units
 * MT4 itself has on the wire: volume in lots × 100 (1 lot = 100, 0.01 lot = 1), where the
 * in-process native shapes hold plain lots. Every answer is `{"ret": <MT4 return code>, ...}`.
 */
import type { Mt4Event, Mt4Pump, Mt4Quote, Mt4Symbol, Mt4TradeRecord } from "../mt4/native.ts";

/** Manager API return codes the gateway answers with (MT4ManagerAPI.h), beyond the trade codes in MT4_RET. */
export const MT4_GATEWAY_RET = {
  ok: 0,
  error: 2,
  invalidData: 3,
  noConnect: 6,
  notEnoughRights: 7,
  tooFrequent: 8,
  securitySession: 11,
  badAccountInfo: 65,
} as const;

/** TradeTransInfo.type values the gateway serves. */
export const MT4_TT = { brOrderOpen: 75, brOrderClose: 76, brOrderDelete: 77, brOrderModify: 80, brBalance: 83 } as const;

/**
 * The gateway's rule for an order's `request_id` (docs/mt4-gateway.md): 1 to 100 letters, digits,
 * `_`, `:`, `.` and `-`. The connector refuses any other id before sending, the gateway refuses it
 * with RET_INVALID_DATA.
 */
export const MT4_GATEWAY_REQUEST_ID = /^[\w:.-]{1,100}$/;

/** MT4 comments hold 31 characters (TradeTransInfo.comment[32]); the gateway refuses longer ones. */
export const MT4_COMMENT_MAX = 31;

/** PumpingSwitchEx's flag that keeps ticks off a pumping stream (`/api/Pumping?flags=`). */
export const CLIENT_FLAGS_HIDETICKS = 1;

/** Lots (in-process native) → the wire's lots × 100. */
export const lotsToWire = (lots: number): number => Math.round(lots * 100);
/** The wire's lots × 100 → lots. */
export const wireToLots = (volume: number): number => volume / 100;

type VolumeConversion = (n: number) => number;

function tradeWith(convert: VolumeConversion) {
  return (r: Mt4TradeRecord): Mt4TradeRecord => ({ ...r, volume: convert(r.volume) });
}

function pumpWith(convert: VolumeConversion) {
  const trade = tradeWith(convert);
  return (p: Mt4Pump): Mt4Pump => (p.type === "trade" ? { ...p, trade: trade(p.trade) } : p);
}

function symbolWith(convert: VolumeConversion) {
  return (s: Mt4Symbol): Mt4Symbol => ({ ...s, lot_min: convert(s.lot_min), lot_max: convert(s.lot_max), lot_step: convert(s.lot_step) });
}

/** Native (lots) → wire (lots × 100). */
export const toWire = {
  trade: tradeWith(lotsToWire),
  event: (e: Mt4Event): Mt4Event => ({ ...e, pumps: e.pumps.map(pumpWith(lotsToWire)) }),
  symbol: symbolWith(lotsToWire),
  /** A TradeTransaction (market or pending) and its answer. */
  transaction: <T extends { volume: number }>(t: T): T => ({ ...t, volume: lotsToWire(t.volume) }),
  result: <R extends { volume: number }>(r: R): R => ({ ...r, volume: lotsToWire(r.volume) }),
};

/** Wire (lots × 100) → native (lots). */
export const fromWire = {
  trade: tradeWith(wireToLots),
  event: (e: Mt4Event): Mt4Event => ({ ...e, pumps: e.pumps.map(pumpWith(wireToLots)) }),
  symbol: symbolWith(wireToLots),
  transaction: <T extends { volume: number }>(t: T): T => ({ ...t, volume: wireToLots(t.volume) }),
  result: <R extends { volume: number }>(r: R): R => ({ ...r, volume: wireToLots(r.volume) }),
};

/** One line of the pumping stream (NDJSON). */
export type PumpLine =
  | { type: "start"; sequence: number }
  | { type: "event"; sequence: number; event: Mt4Event }
  | { type: "ping"; time: number }
  /** PUMP_UPDATE_BIDASK: the symbols that ticked, the latest of each; unless CLIENT_FLAGS_HIDETICKS. */
  | { type: "bidask"; ticks: Mt4Quote[] }
  /** The events after `after` are no longer held: read a snapshot, then pump from now. */
  | { type: "gap"; sequence: number };
