/**
 * Each platform codec round-trips: what a server encodes, the connector decodes to the same
 * normalized value (property tests over generated values), and every transaction a simulated
 * server records survives the trip through the platform's native events.
 */
import fc from "./propertyTesting.ts";
import { describe, expect, it } from "vitest";
import {
  withoutCommission,
  type Account,
  type NativeAccountRef,
  type NativePositionRef,
  type PositionRecord,
  type TradePlatformType,
  type TradeReason,
} from "../../../core/trading/index.ts";
import { ManualClock } from "../../../server/connectors/clock.ts";
import { ConnectorError, type ConnectorErrorCode, type RejectReason } from "../../../server/connectors/errors.ts";
import { matchTraderCodec } from "../../../server/connectors/matchTrader/codec.ts";
import { mt4Codec } from "../../../server/connectors/mt4/codec.ts";
import { mt5Codec } from "../../../server/connectors/mt5/codec.ts";
import { SimulatedServer } from "../../../server/connectors/simulated/server.ts";
import type { PlatformCodec, RecordedTradeEvent } from "../../../server/connectors/wire/codec.ts";
import type { NativeTypes } from "../../../server/connectors/wire/wire.ts";

interface Platform {
  codec: PlatformCodec<NativeTypes>;
  /** Resolution of the platform's times, in ms. */
  timeUnit: number;
  /** Resolution of account registration and last access. */
  accountTimeUnit: number;
  /** Smallest volume step the wire can carry. */
  volumeStep: number;
  positionId: fc.Arbitrary<string>;
  positionNative: (id: string) => NativePositionRef;
  accountNative: (login: string) => fc.Arbitrary<NativeAccountRef>;
}

const numericId = fc.integer({ min: 1, max: 2 ** 40 }).map(String);
const uuid = fc.uuid({ version: 4 });

const PLATFORMS: Record<TradePlatformType, Platform> = {
  MT4: {
    codec: mt4Codec({ timeZoneOffsetMinutes: 120 }),
    timeUnit: 1000,
    accountTimeUnit: 1000,
    volumeStep: 100,
    positionId: numericId,
    positionNative: (id) => ({ platform: "MT4", ticket: Number(id) }),
    accountNative: (login) => fc.constant({ platform: "MT4", login: Number(login) }),
  },
  MT5: {
    codec: mt5Codec({ timeZoneOffsetMinutes: 180 }),
    timeUnit: 1,
    accountTimeUnit: 1000,
    volumeStep: 1,
    positionId: numericId,
    positionNative: (id) => ({ platform: "MT5", position: Number(id) }),
    accountNative: (login) => fc.constant({ platform: "MT5", login: Number(login) }),
  },
  MatchTrader: {
    codec: matchTraderCodec(),
    timeUnit: 1,
    accountTimeUnit: 1,
    volumeStep: 100,
    positionId: uuid,
    positionNative: (id) => ({ platform: "MatchTrader", positionId: id }),
    accountNative: () => fc.record({ platform: fc.constant("MatchTrader" as const), accountId: uuid, offerId: uuid }),
  },
};

const time = (unit: number) => fc.integer({ min: 1e12 / unit, max: 2e12 / unit }).map((t) => t * unit);
const cents = fc.integer({ min: -1e12, max: 1e12 });
const price = fc.integer({ min: 1, max: 1e9 }).map((n) => n / 1e5);
const text = fc.string({ maxLength: 20 }).filter((s) => !/^(from|to) #/.test(s));
const openReason = fc.constantFrom<TradeReason>("client", "expert", "dealer", "api", "mobile", "web");

function account(p: Platform): fc.Arbitrary<Account> {
  return numericId.chain((login) =>
    fc
      .record({
        group: text,
        name: text,
        email: text,
        phone: text,
        country: text,
        city: text,
        address: text,
        comment: text,
        registration: time(p.accountTimeUnit),
        lastAccess: fc.option(time(p.accountTimeUnit), { nil: null }),
        leverage: fc.integer({ min: 1, max: 10_000 }),
        currency: fc.constantFrom("USD", "EUR", "JPY"),
        balance: cents,
        credit: fc.integer({ min: 0, max: 1e9 }),
        equity: cents,
        margin: fc.integer({ min: 0, max: 1e9 }),
        freeMargin: cents,
        level: fc.integer({ min: 0, max: 1e8 }).map((n) => n / 100),
        marginState: fc.constantFrom("ok", "marginCall", "stopOut" as const),
        enabled: fc.boolean(),
        readOnly: fc.boolean(),
        changePasswordAllowed: fc.boolean(),
        otpEnabled: fc.boolean(),
        agentAccount: fc.option(numericId, { nil: null }),
        leadSource: text,
        native: p.accountNative(login),
      })
      .map(({ level, ...a }) => ({ ...a, login, marginLevel: a.margin === 0 ? null : level })),
  );
}

function position(p: Platform): fc.Arbitrary<PositionRecord> {
  return p.positionId.chain((id) =>
    fc.record({
      id: fc.constant(id),
      login: numericId,
      symbol: fc.constantFrom("EURUSD", "XAUUSD", "BTCUSD"),
      side: fc.constantFrom("buy", "sell" as const),
      volume: fc.integer({ min: 1, max: 1e6 }).map((v) => v * p.volumeStep),
      openTime: time(p.timeUnit),
      openPrice: price,
      currentPrice: price,
      sl: fc.option(price, { nil: null }),
      tp: fc.option(price, { nil: null }),
      profit: cents,
      swap: cents,
      commission: fc.integer({ min: -1e6, max: 0 }),
      comment: text,
      reason: openReason,
      previousId: fc.constant(null),
      native: fc.constant(p.positionNative(id)),
    }),
  );
}

const errors: [ConnectorErrorCode, RejectReason | undefined][] = [
  ["unreachable", undefined],
  ["credentialsRefused", undefined],
  ["timeout", undefined],
  ["notFound", undefined],
  ["invalidRequest", undefined],
  ["resyncRequired", undefined],
  ...(
    [
      "notEnoughMoney",
      "marketClosed",
      "tradeDisabled",
      "accountDisabled",
      "invalidVolume",
      "invalidStops",
      "invalidPrice",
      "invalidExpiration",
      "priceChanged",
      "tooManyPositions",
      "serverBusy",
      "maxMoney",
      "other",
    ] as const
  ).map((r): [ConnectorErrorCode, RejectReason] => ["rejected", r]),
];

for (const [name, p] of Object.entries(PLATFORMS) as [TradePlatformType, Platform][]) {
  describe(`${name} codec`, () => {
    const { codec } = p;

    it("round-trips times at the platform's resolution", () => {
      fc.assert(
        fc.property(time(p.timeUnit), (t) => {
          expect(codec.time.decode(codec.time.encode(t))).toBe(t);
        }),
      );
    });

    it("round-trips accounts, money to the cent", () => {
      fc.assert(
        fc.property(account(p), (a) => {
          expect(codec.account.decode(codec.account.encode(a))).toEqual(a);
        }),
      );
    });

    it("round-trips positions, volume in the platform's unit", () => {
      fc.assert(
        fc.property(position(p), (record) => {
          expect(codec.position.decode(codec.position.encode(record))).toEqual(withoutCommission(record));
        }),
      );
    });

    it("round-trips balance operations and orders", () => {
      const balance = fc.record({
        operationId: fc.string({ minLength: 1, maxLength: 40 }),
        login: numericId,
        type: fc.constantFrom("deposit", "withdrawal", "creditIn", "creditOut" as const),
        amount: fc.integer({ min: 1, max: 1e12 }),
        comment: text,
      });
      fc.assert(
        fc.property(balance, (r) => {
          expect(codec.balanceRequest.decode(codec.balanceRequest.encode(r))).toEqual(r);
        }),
      );
      const order = fc.record({
        requestId: fc.string({ minLength: 1, maxLength: 40 }),
        login: numericId,
        symbol: fc.constantFrom("EURUSD", "US30"),
        side: fc.constantFrom("buy", "sell" as const),
        volume: fc.integer({ min: 1, max: 1e5 }).map((v) => v * p.volumeStep),
        sl: fc.option(price, { nil: null }),
        tp: fc.option(price, { nil: null }),
        comment: text,
        reason: openReason,
      });
      fc.assert(
        fc.property(order, (o) => {
          expect(codec.orderRequest.decode(codec.orderRequest.encode(o))).toEqual(o);
        }),
      );
      const close = p.positionId.chain((positionId) =>
        fc.record({
          requestId: fc.string({ minLength: 1 }),
          positionId: fc.constant(positionId),
          volume: fc.integer({ min: 1, max: 1e5 }).map((v) => v * p.volumeStep),
          comment: text,
          reason: openReason,
        }),
      );
      fc.assert(
        fc.property(close, (c) => {
          expect(codec.closeRequest.decode(codec.closeRequest.encode(c))).toEqual(c);
        }),
      );
    });

    it("round-trips every error code and reject reason, message intact", () => {
      for (const [code, reason] of errors) {
        const decoded = codec.error.decode(codec.error.encode(new ConnectorError(code, "Something a dealer reads.", reason)));
        // Only MT5 has a code of its own for an amount past the server's limits (4005); the others carry it as a plain rejection.
        const expected = reason === "maxMoney" && name !== "MT5" ? "other" : reason;
        expect([decoded.code, decoded.reason, decoded.message]).toEqual([code, expected, "Something a dealer reads."]);
      }
    });

    if (p.volumeStep > 1)
      it("refuses volumes finer than 0.01 lot instead of rounding them", () => {
        expect(() => codec.orderRequest.encode({ requestId: "r", login: "1", symbol: "EURUSD", side: "buy", volume: 150 })).toThrow(/0\.01 lot/);
      });

    it("carries every transaction a simulated server records through its native events", () => {
      const server = new SimulatedServer({ platform: name, clock: new ManualClock(), seed: 3, accounts: 60, tradeRate: 0 });
      const seen: RecordedTradeEvent[][] = [];
      server.engine.ctx.log.listen((tx) => seen.push(tx.events));
      for (let i = 0; i < 40; i++) {
        server.traders.step(25);
        server.engine.tickPrices();
      }
      expect(seen.length).toBeGreaterThan(500);
      const kinds = new Set(seen.flatMap((events) => events.map((e) => (e.type === "positionModified" ? `${e.type}:${e.change}` : e.type))));
      expect(kinds).toContain("positionClosed");
      expect(kinds).toContain(name === "MT4" ? "positionOpened" : "positionModified:partialClose");
      // The simulated traders place pending orders; some fill on the feed.
      expect(kinds).toContain("orderPlaced");
      expect(kinds).toContain("orderFilled");
      for (const events of seen) {
        const normalized = events.map((e) => {
          if (e.type === "positionModified") {
            const { closedPart: _part, ...rest } = e;
            return { ...rest, position: withoutCommission(e.position) };
          }
          return e.type === "positionOpened" || e.type === "positionClosed" || e.type === "orderFilled" ? { ...e, position: withoutCommission(e.position) } : e;
        });
        expect(codec.event.decode(structuredClone(codec.event.encode(events)))).toEqual(normalized);
      }
    });
  });
}
