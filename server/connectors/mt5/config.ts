/** MT5 groups, symbols and ticks. */
import { moneyFromDecimal, moneyToDecimal, type Group, type Holiday, type Quote, type TradeSymbol } from "../../../core/trading/index.ts";
import type { Codec } from "../wire/codec.ts";
import { codeTable, holidayDate } from "../wire/convert.ts";
import type { Mt5Group, Mt5Holiday, Mt5Symbol, Mt5Tick } from "./native.ts";

const execution = codeTable({ request: 0, instant: 1, market: 2 } as const, "execution mode");
const tradeMode = codeTable({ disabled: 0, closeOnly: 3, full: 4 } as const, "trade mode");

export function mt5ConfigCodecs(time: Codec<number, number>) {
  const level = (mode: Group["marginLevelMode"], value: number) => (mode === "percent" ? value.toFixed(2) : moneyToDecimal(value));
  const unlevel = (mode: 0 | 1, value: string) => (mode === 0 ? Number(value) : moneyFromDecimal(value));
  const codecs: {
    group: Codec<Group, Mt5Group>;
    symbol: Codec<TradeSymbol, Mt5Symbol>;
    quote: Codec<Quote, Mt5Tick>;
    holiday: Codec<Holiday, Mt5Holiday>;
  } = {
    group: {
      encode: (g) => ({
        Group: g.name,
        Currency: g.currency,
        DefaultLeverage: g.defaultLeverage,
        MarginSOMode: g.marginLevelMode === "percent" ? 0 : 1,
        MarginCall: level(g.marginLevelMode, g.marginCall),
        MarginStopOut: level(g.marginLevelMode, g.stopOut),
        MarginMode: g.marginMode === "hedging" ? 2 : 0,
        HedgeProhibited: g.hedgingProhibited ? 1 : 0,
        FIFOClose: g.fifoClose ? 1 : 0,
        LimitPositions: g.maxPositions,
        SymbolsMask: g.symbols,
        CommissionPerLot: moneyToDecimal(g.commissionPerLot),
      }),
      decode: (g) => ({
        name: g.Group,
        currency: g.Currency,
        defaultLeverage: g.DefaultLeverage,
        marginLevelMode: g.MarginSOMode === 0 ? "percent" : "money",
        marginCall: unlevel(g.MarginSOMode, g.MarginCall),
        stopOut: unlevel(g.MarginSOMode, g.MarginStopOut),
        marginMode: g.MarginMode === 2 ? "hedging" : "netting",
        hedgingProhibited: g.HedgeProhibited === 1,
        fifoClose: g.FIFOClose === 1,
        maxPositions: g.LimitPositions,
        symbols: g.SymbolsMask,
        commissionPerLot: moneyFromDecimal(g.CommissionPerLot),
        native: { platform: "MT5" },
      }),
    },
    symbol: {
      encode: (s) => ({
        Symbol: s.name,
        Description: s.description,
        Class: s.class,
        Path: s.path,
        Digits: s.digits,
        ContractSize: s.contractSize,
        CurrencyBase: s.baseCurrency,
        CurrencyProfit: s.profitCurrency,
        ExecMode: execution.encode(s.executionMode),
        TradeMode: tradeMode.encode(s.tradeMode),
        Spread: s.spread,
        SpreadBalance: s.spreadBalance,
        StopsLevel: s.stopsLevel,
        FreezeLevel: s.freezeLevel,
        SwapLong: s.swapLong,
        SwapShort: s.swapShort,
        VolumeMin: String(s.volumeMin),
        VolumeMax: String(s.volumeMax),
        VolumeStep: String(s.volumeStep),
        MaxLeverage: s.maxLeverage ?? 0,
        MarginInitial: s.marginInitial,
        MarginMaintenance: s.marginMaintenance,
        MarginHedged: s.marginHedged,
        SessionsTrade: s.sessions.map((x) => ({ Day: x.day, Open: x.from, Close: x.to })),
      }),
      decode: (s) => ({
        name: s.Symbol,
        description: s.Description,
        class: s.Class as TradeSymbol["class"],
        path: s.Path,
        digits: s.Digits,
        contractSize: s.ContractSize,
        baseCurrency: s.CurrencyBase,
        profitCurrency: s.CurrencyProfit,
        executionMode: execution.decode(s.ExecMode),
        tradeMode: tradeMode.decode(s.TradeMode),
        spread: s.Spread,
        spreadBalance: s.SpreadBalance,
        stopsLevel: s.StopsLevel,
        freezeLevel: s.FreezeLevel,
        swapLong: s.SwapLong,
        swapShort: s.SwapShort,
        volumeMin: Number(s.VolumeMin),
        volumeMax: Number(s.VolumeMax),
        volumeStep: Number(s.VolumeStep),
        maxLeverage: s.MaxLeverage === 0 ? null : s.MaxLeverage,
        marginInitial: s.MarginInitial,
        marginMaintenance: s.MarginMaintenance,
        marginHedged: s.MarginHedged,
        sessions: s.SessionsTrade.map((x) => ({ day: x.Day, from: x.Open, to: x.Close })),
      }),
    },
    quote: {
      encode: (q) => ({ Symbol: q.symbol, Bid: q.bid, Ask: q.ask, Datetime_msc: time.encode(q.time) }),
      decode: (q) => ({ symbol: q.Symbol, bid: q.Bid, ask: q.Ask, time: time.decode(q.Datetime_msc) }),
    },
    holiday: {
      encode: (h) => {
        const [Year, Month, Day] = h.date.split("-").map(Number) as [number, number, number];
        const Symbols = h.symbols
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean);
        return { Description: h.description, Mode: h.enabled ? 1 : 0, Year, Month, Day, WorkFrom: h.from, WorkTo: h.to, Symbols };
      },
      decode: (h) => ({
        date: holidayDate(h.Year, h.Month, h.Day),
        from: h.WorkFrom,
        to: h.WorkTo,
        symbols: h.Symbols.join(","),
        description: h.Description,
        enabled: h.Mode === 1,
      }),
    },
  };
  return codecs;
}
