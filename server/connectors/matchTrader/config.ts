/** Match-Trader groups (inside offers), instruments and quotes. */
import { lotsToVolume, moneyFromDecimal, moneyToDecimal, type Group, type Quote, type TradeSymbol } from "../../../core/trading/index.ts";
import type { Codec } from "../wire/codec.ts";
import { codeTable, volumeAsLots } from "../wire/convert.ts";
import type { MtGroup, MtInstrument, MtQuote } from "./native.ts";

const instrumentType = codeTable({ forex: "FOREX", metal: "METAL", index: "INDEX", crypto: "CRYPTO" } as const, "instrument type");
const execution = codeTable({ request: "REQUEST", instant: "INSTANT", market: "MARKET" } as const, "execution mode");
const tradeMode = codeTable({ full: "FULL", closeOnly: "CLOSE_ONLY", disabled: "DISABLED" } as const, "trading mode");

export function matchTraderConfigCodecs(time: Codec<number, string>) {
  const codecs: {
    group: Codec<Group, MtGroup>;
    symbol: Codec<TradeSymbol, MtInstrument>;
    quote: Codec<Quote, MtQuote>;
  } = {
    group: {
      encode: (g) => ({
        name: g.name,
        offerUuid: g.native.platform === "MatchTrader" ? g.native.offerId : "",
        branch: g.native.platform === "MatchTrader" ? g.native.branch : "",
        currency: g.currency,
        defaultLeverage: g.defaultLeverage,
        marginCallMode: g.marginLevelMode === "percent" ? "PERCENT" : "MONEY",
        marginCall: g.marginLevelMode === "percent" ? g.marginCall.toFixed(2) : moneyToDecimal(g.marginCall),
        stopOut: g.marginLevelMode === "percent" ? g.stopOut.toFixed(2) : moneyToDecimal(g.stopOut),
        accountingMode: g.marginMode === "hedging" ? "HEDGING" : "NETTING",
        hedgingProhibited: g.hedgingProhibited,
        fifo: g.fifoClose,
        maxPositions: g.maxPositions,
        instruments: g.symbols,
        commissionPerLot: moneyToDecimal(g.commissionPerLot),
      }),
      decode: (g) => {
        const percent = g.marginCallMode === "PERCENT";
        return {
          name: g.name,
          currency: g.currency,
          defaultLeverage: g.defaultLeverage,
          marginLevelMode: percent ? "percent" : "money",
          marginCall: percent ? Number(g.marginCall) : moneyFromDecimal(g.marginCall),
          stopOut: percent ? Number(g.stopOut) : moneyFromDecimal(g.stopOut),
          marginMode: g.accountingMode === "HEDGING" ? "hedging" : "netting",
          hedgingProhibited: g.hedgingProhibited,
          fifoClose: g.fifo,
          maxPositions: g.maxPositions,
          symbols: g.instruments,
          commissionPerLot: moneyFromDecimal(g.commissionPerLot),
          native: { platform: "MatchTrader", offerId: g.offerUuid, branch: g.branch },
        };
      },
    },
    symbol: {
      encode: (s) => ({
        symbol: s.name,
        description: s.description,
        type: instrumentType.encode(s.class),
        path: s.path,
        pricePrecision: s.digits,
        contractSize: s.contractSize,
        baseCurrency: s.baseCurrency,
        quoteCurrency: s.profitCurrency,
        executionMode: execution.encode(s.executionMode),
        tradingMode: tradeMode.encode(s.tradeMode),
        spread: s.spread,
        stopsLevel: s.stopsLevel,
        freezeLevel: s.freezeLevel,
        swapLong: s.swapLong,
        swapShort: s.swapShort,
        minVolume: volumeAsLots(s.volumeMin, "Match-Trader"),
        maxVolume: volumeAsLots(s.volumeMax, "Match-Trader"),
        volumeStep: volumeAsLots(s.volumeStep, "Match-Trader"),
        maxLeverage: s.maxLeverage,
        sessions: s.sessions.map((x) => ({ dayOfWeek: x.day, openMinute: x.from, closeMinute: x.to })),
      }),
      decode: (s) => ({
        name: s.symbol,
        description: s.description,
        class: instrumentType.decode(s.type),
        path: s.path,
        digits: s.pricePrecision,
        contractSize: s.contractSize,
        baseCurrency: s.baseCurrency,
        profitCurrency: s.quoteCurrency,
        executionMode: execution.decode(s.executionMode),
        tradeMode: tradeMode.decode(s.tradingMode),
        spread: s.spread,
        // The vendor's instruments have neither: the spread sits where its markups put it, margin comes from leverage.
        spreadBalance: 0,
        stopsLevel: s.stopsLevel,
        freezeLevel: s.freezeLevel,
        swapLong: s.swapLong,
        swapShort: s.swapShort,
        volumeMin: lotsToVolume(s.minVolume),
        volumeMax: lotsToVolume(s.maxVolume),
        volumeStep: lotsToVolume(s.volumeStep),
        maxLeverage: s.maxLeverage,
        marginInitial: 0,
        marginMaintenance: 0,
        marginHedged: 0,
        sessions: s.sessions.map((x) => ({ day: x.dayOfWeek, from: x.openMinute, to: x.closeMinute })),
      }),
    },
    quote: {
      encode: (q) => ({ symbol: q.symbol, bid: q.bid, ask: q.ask, timestamp: time.encode(q.time) }),
      decode: (q) => ({ symbol: q.symbol, bid: q.bid, ask: q.ask, time: time.decode(q.timestamp) }),
    },
  };
  return codecs;
}
