/** MT4 groups, symbols and quotes. */
import { lotsToVolume, moneyToNumber, roundToMinor, type Group, type Holiday, type Quote, type TradeSymbol } from "../../../core/trading/index.ts";
import type { Codec } from "../wire/codec.ts";
import { codeTable, flag, holidayDate, volumeAsLots } from "../wire/convert.ts";
import type { Mt4Group, Mt4Holiday, Mt4Quote, Mt4Symbol } from "./native.ts";

const execution = codeTable({ request: 0, instant: 1, market: 2 } as const, "execution mode");
const tradeMode = codeTable({ disabled: 0, closeOnly: 1, full: 2 } as const, "trade mode");

export function mt4ConfigCodecs(time: Codec<number, number>) {
  const codecs: {
    group: Codec<Group, Mt4Group>;
    symbol: Codec<TradeSymbol, Mt4Symbol>;
    quote: Codec<Quote, Mt4Quote>;
    holiday: Codec<Holiday, Mt4Holiday>;
  } = {
    group: {
      encode: (g) => ({
        group: g.name,
        currency: g.currency,
        default_leverage: g.defaultLeverage,
        margin_type: g.marginLevelMode === "percent" ? 0 : 1,
        margin_call: g.marginLevelMode === "percent" ? g.marginCall : moneyToNumber(g.marginCall),
        margin_stopout: g.marginLevelMode === "percent" ? g.stopOut : moneyToNumber(g.stopOut),
        margin_mode: g.marginMode === "hedging" ? 0 : 1,
        hedge_prohibited: flag(g.hedgingProhibited),
        close_fifo: flag(g.fifoClose),
        maxpositions: g.maxPositions,
        symbols_mask: g.symbols,
        commission: moneyToNumber(g.commissionPerLot),
      }),
      decode: (g): Group => ({
        name: g.group,
        currency: g.currency,
        defaultLeverage: g.default_leverage,
        marginLevelMode: g.margin_type === 0 ? "percent" : "money",
        marginCall: g.margin_type === 0 ? g.margin_call : roundToMinor(g.margin_call),
        stopOut: g.margin_type === 0 ? g.margin_stopout : roundToMinor(g.margin_stopout),
        marginMode: g.margin_mode === 0 ? "hedging" : "netting",
        hedgingProhibited: g.hedge_prohibited === 1,
        fifoClose: g.close_fifo === 1,
        maxPositions: g.maxpositions,
        symbols: g.symbols_mask,
        commissionPerLot: roundToMinor(g.commission),
        native: { platform: "MT4" },
      }),
    },
    symbol: {
      encode: (s) => ({
        symbol: s.name,
        description: s.description,
        type: s.class,
        path: s.path,
        digits: s.digits,
        contract_size: s.contractSize,
        currency: s.baseCurrency,
        profit_currency: s.profitCurrency,
        exemode: execution.encode(s.executionMode),
        trade: tradeMode.encode(s.tradeMode),
        spread: s.spread,
        spread_balance: s.spreadBalance,
        stops_level: s.stopsLevel,
        freeze_level: s.freezeLevel,
        swap_long: s.swapLong,
        swap_short: s.swapShort,
        lot_min: volumeAsLots(s.volumeMin, "MT4"),
        lot_max: volumeAsLots(s.volumeMax, "MT4"),
        lot_step: volumeAsLots(s.volumeStep, "MT4"),
        max_leverage: s.maxLeverage ?? 0,
        margin_initial: s.marginInitial,
        margin_maintenance: s.marginMaintenance,
        margin_hedged: s.marginHedged,
        sessions: s.sessions.map((x) => ({ day: x.day, open: x.from, close: x.to })),
      }),
      decode: (s): TradeSymbol => ({
        name: s.symbol,
        description: s.description,
        class: s.type as TradeSymbol["class"],
        path: s.path,
        digits: s.digits,
        contractSize: s.contract_size,
        baseCurrency: s.currency,
        profitCurrency: s.profit_currency,
        executionMode: execution.decode(s.exemode),
        tradeMode: tradeMode.decode(s.trade),
        spread: s.spread,
        spreadBalance: s.spread_balance,
        stopsLevel: s.stops_level,
        freezeLevel: s.freeze_level,
        swapLong: s.swap_long,
        swapShort: s.swap_short,
        volumeMin: lotsToVolume(s.lot_min),
        volumeMax: lotsToVolume(s.lot_max),
        volumeStep: lotsToVolume(s.lot_step),
        maxLeverage: s.max_leverage === 0 ? null : s.max_leverage,
        marginInitial: s.margin_initial,
        marginMaintenance: s.margin_maintenance,
        marginHedged: s.margin_hedged,
        sessions: s.sessions.map((x) => ({ day: x.day, from: x.open, to: x.close })),
      }),
    },
    quote: {
      encode: (q) => ({ symbol: q.symbol, bid: q.bid, ask: q.ask, time: time.encode(q.time) }),
      decode: (q) => ({ symbol: q.symbol, bid: q.bid, ask: q.ask, time: time.decode(q.time) }),
    },
    holiday: {
      encode: (h) => {
        const [year, month, day] = h.date.split("-").map(Number) as [number, number, number];
        return { year, month, day, from: h.from, to: h.to, symbol: h.symbols, description: h.description, enable: flag(h.enabled) };
      },
      decode: (h) => ({
        date: holidayDate(h.year, h.month, h.day),
        from: h.from,
        to: h.to,
        symbols: h.symbol,
        description: h.description,
        enabled: h.enable === 1,
      }),
    },
  };
  return codecs;
}
