/**
 * Properties of the copy rules over generated inputs (fast-check, fixed seed; FC_SEED=<n> explores
 * others): reverse is its own inverse; a follower's volume is a whole multiple of its step within
 * its limits, or the copy is skipped with a reason; partial closes never close more than is open;
 * mapping and request ids are deterministic; the preview never closes more than it opened.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  copyRequestId,
  decide,
  fitVolume,
  mapSymbolName,
  orderTypeFor,
  partialCloseVolume,
  previewFollower,
  sideFor,
  sourceActionsOf,
  stopsFor,
  volumeLimits,
  type HistoryDeal,
} from "../../../core/copier/index.ts";
import { SKIP_REASONS, SymbolMappingSchema, type VolumeMode } from "../../../core/schemas/copier.ts";
import { PENDING_ORDER_TYPES } from "../../../core/trading/index.ts";
import { context, position, previewContext, settings, symbol } from "./fixtures.ts";

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20_261_127), numRuns: 300 });

const stepArb = fc.constantFrom(1, 10, 100, 1000, 10_000);
const symbolArb = fc
  .record({
    step: stepArb,
    minSteps: fc.integer({ min: 1, max: 20 }),
    maxSteps: fc.integer({ min: 0, max: 100_000 }),
    contractSize: fc.constantFrom(1, 10, 100, 1000, 100_000),
  })
  .map(({ step, minSteps, maxSteps, contractSize }) =>
    symbol("EURUSD", { volumeStep: step, volumeMin: step * minSteps, volumeMax: step * (minSteps + maxSteps), contractSize }),
  );
const lotsText = fc.integer({ min: 1, max: 100_000 }).map((v) => String(v / 10_000));
const volumeModeArb: fc.Arbitrary<VolumeMode> = fc.oneof(
  fc.constant({ mode: "same" as const }),
  fc.double({ min: 0.01, max: 100, noNaN: true }).map((multiplier) => ({ mode: "multiplier" as const, multiplier })),
  lotsText.map((lots) => ({ mode: "fixed" as const, lots })),
  fc.double({ min: 0.01, max: 100, noNaN: true }).map((factor) => ({ mode: "equity" as const, factor })),
  fc.double({ min: 0.01, max: 100, noNaN: true }).map((factor) => ({ mode: "balance" as const, factor })),
  fc.double({ min: 0.01, max: 100, noNaN: true }).map((percent) => ({ mode: "riskPercent" as const, percent })),
);

describe("reverse", () => {
  it("a reversed reverse is the identity: sides, pending order types, stops", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("buy" as const, "sell" as const),
        fc.constantFrom(...PENDING_ORDER_TYPES),
        fc.option(fc.double({ min: 0.001, max: 1e5, noNaN: true })),
        fc.option(fc.double({ min: 0.001, max: 1e5, noNaN: true })),
        (side, type, sl, tp) => {
          expect(sideFor("reverse", sideFor("reverse", side))).toBe(side);
          expect(orderTypeFor("reverse", orderTypeFor("reverse", type))).toBe(type);
          expect(stopsFor("reverse", stopsFor("reverse", { sl, tp }))).toEqual({ sl, tp });
          expect(sideFor("reverse", side)).not.toBe(side);
          expect(sideFor("same", side)).toBe(side);
        },
      ),
    );
  });

  it("reversing an open copies the same volume on the other side, with SL and TP swapped", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.constantFrom("buy" as const, "sell" as const), (volume, side) => {
        const p = position({ volume, side, sl: 1.05, tp: 1.15 });
        const same = decide({ type: "open", time: 1_000_000, position: p }, settings(), context());
        const reversed = decide({ type: "open", time: 1_000_000, position: p }, settings({ direction: "reverse" }), context());
        if (same.kind !== "copy" || reversed.kind !== "copy" || same.action.type !== "open" || reversed.action.type !== "open") {
          expect(reversed).toEqual(same);
          return;
        }
        expect(reversed.action.volume).toBe(same.action.volume);
        expect(reversed.action.side).toBe(sideFor("reverse", same.action.side));
        expect({ sl: reversed.action.sl, tp: reversed.action.tp }).toEqual({ sl: same.action.tp, tp: same.action.sl });
      }),
    );
  });
});

describe("volume", () => {
  it("fitting: a multiple of the step within the limits, or a skip with a known reason", () => {
    fc.assert(
      fc.property(
        symbolArb,
        fc.oneof(fc.double({ min: -10, max: 1e8, noNaN: true }), fc.constant(Number.POSITIVE_INFINITY)),
        fc.option(lotsText),
        fc.option(lotsText),
        fc.boolean(),
        (sym, raw, minLots, maxLots, forceMinimum) => {
          const [lo, hi] = minLots !== null && maxLots !== null && Number(minLots) > Number(maxLots) ? [maxLots, minLots] : [minLots, maxLots];
          const s = settings({ minLots: lo, maxLots: hi, forceMinimum });
          const fitted = fitVolume(raw, s, sym);
          if ("skip" in fitted) {
            expect(SKIP_REASONS).toContain(fitted.skip);
            return;
          }
          const { min, max, step } = volumeLimits(s, sym);
          expect(Number.isSafeInteger(fitted.volume)).toBe(true);
          expect(fitted.volume % step).toBe(0);
          expect(fitted.volume).toBeGreaterThanOrEqual(min);
          expect(fitted.volume).toBeLessThanOrEqual(max);
          // Rounded down: never above the raw figure, unless forced up to the minimum.
          if (fitted.volume > raw) expect(forceMinimum && fitted.volume === Math.ceil(min / step) * step).toBe(true);
        },
      ),
    );
  });

  it("every volume mode through decide: an open is a multiple of the follower's step within its limits, or skipped with a reason", () => {
    fc.assert(
      fc.property(
        symbolArb,
        volumeModeArb,
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 1e12 }),
        fc.integer({ min: 0, max: 1e12 }),
        fc.option(fc.double({ min: 0.5, max: 1.5, noNaN: true })),
        (sym, volume, sourceVolume, align, followerMoney, sourceMoney, sl) => {
          const s = settings({ volume, alignContractSize: align });
          const ctx = context(
            {
              sourceSymbol: symbol("EURUSD", { contractSize: 100_000 }),
              follower: { balance: followerMoney, equity: followerMoney },
              source: { balance: sourceMoney, equity: sourceMoney },
            },
            [sym],
          );
          const d = decide({ type: "open", time: 1_000_000, position: position({ volume: sourceVolume, openPrice: 1, sl }) }, s, ctx);
          if (d.kind === "skip") {
            expect(SKIP_REASONS).toContain(d.reason);
            return;
          }
          if (d.kind !== "copy" || d.action.type !== "open") throw new Error("an open decides an open or a skip");
          const { min, max, step } = volumeLimits(s, sym);
          expect(d.action.volume % step).toBe(0);
          expect(d.action.volume).toBeGreaterThanOrEqual(min);
          expect(d.action.volume).toBeLessThanOrEqual(max);
        },
      ),
    );
  });
});

describe("partial closes", () => {
  it("never close more than is open, leave nothing below the minimum, and close in whole steps unless closing all", () => {
    fc.assert(
      fc.property(
        symbolArb,
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 2, max: 1_000_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (sym, followerVolume, before, fraction) => {
          const closed = Math.max(1, Math.floor(before * fraction));
          const part = partialCloseVolume(followerVolume, before, closed, sym);
          if ("skip" in part) {
            expect(part.skip).toBe("volumeZero");
            return;
          }
          expect(part.volume).toBeGreaterThan(0);
          expect(part.volume).toBeLessThanOrEqual(followerVolume);
          if (part.whole) expect(part.volume).toBe(followerVolume);
          else {
            expect(part.volume % sym.volumeStep).toBe(0);
            expect(followerVolume - part.volume).toBeGreaterThanOrEqual(sym.volumeMin);
            // Never more than the follower's share of what the source closed.
            expect(part.volume).toBeLessThanOrEqual((followerVolume * closed) / before + 1e-6);
          }
        },
      ),
    );
  });

  it("the preview of any sequence of partial closes closes exactly what it opened, never more", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 100_000 }),
        fc.array(fc.integer({ min: 1, max: 100_000 }), { maxLength: 8 }),
        fc.double({ min: 0.01, max: 10, noNaN: true }),
        (opened, cuts, multiplier) => {
          const deals: HistoryDeal[] = [
            { id: "d0", time: 1000, action: "buy", entry: "in", positionId: "P", symbol: "EURUSD", volume: opened, price: 1.1, sl: null, tp: null },
          ];
          let left = opened;
          let t = 1001;
          for (const cut of cuts) {
            if (left <= 0) break;
            const v = Math.min(left, cut);
            deals.push({ id: `d${t}`, time: t++, action: "sell", entry: "out", positionId: "P", symbol: "EURUSD", volume: v, price: 1.1, sl: null, tp: null });
            left -= v;
          }
          const actions = sourceActionsOf({ login: "1", deals, orders: [] }, 0, 1_000_000);
          const signals = previewFollower(actions, settings({ volume: { mode: "multiplier", multiplier } }), previewContext());
          const openedLots = signals.filter((s) => s.follower?.action === "open").reduce((sum, s) => sum + Number(s.follower!.volume), 0);
          const closedLots = signals.filter((s) => s.follower?.action === "close").reduce((sum, s) => sum + Number(s.follower!.volume), 0);
          expect(closedLots).toBeLessThanOrEqual(openedLots + 1e-9);
          if (left === 0 && openedLots > 0) expect(Math.abs(closedLots - openedLots)).toBeLessThan(1e-9);
        },
      ),
    );
  });
});

describe("determinism", () => {
  const name = fc.stringMatching(/^[A-Za-z.#_]{1,12}$/);
  const mappingArb = fc.record({
    pairs: fc.uniqueArray(fc.record({ source: name, follower: name }), { selector: (p) => p.source.toLowerCase(), maxLength: 5 }),
    sourcePrefix: fc.stringMatching(/^[a-z.]{0,2}$/),
    sourceSuffix: fc.stringMatching(/^[a-z.]{0,2}$/),
    followerPrefix: fc.stringMatching(/^[a-z.]{0,2}$/),
    followerSuffix: fc.stringMatching(/^[a-z.]{0,2}$/),
  });

  it("mapping: the same source symbol always maps to the same name; an explicit pair always wins", () => {
    fc.assert(
      fc.property(mappingArb, name, (raw, source) => {
        const mapping = SymbolMappingSchema.parse(raw);
        expect(mapSymbolName(mapping, source)).toBe(mapSymbolName(structuredClone(mapping), source));
        for (const pair of mapping.pairs) expect(mapSymbolName(mapping, pair.source.toUpperCase())).toBe(pair.follower);
        if (!mapping.pairs.some((p) => p.source.toLowerCase() === source.toLowerCase())) {
          const mapped = mapSymbolName(mapping, source);
          expect(mapped.startsWith(mapping.followerPrefix) && mapped.endsWith(mapping.followerSuffix)).toBe(true);
        }
      }),
    );
  });

  it("request ids: a pure function of link, follower, source position and action", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string({ minLength: 1 }), (link, follower, id) => {
        const action = { type: "open" as const, time: 1, position: position({ id }) };
        expect(copyRequestId(link, follower, action)).toBe(copyRequestId(link, follower, { ...action, time: 99 }));
        expect(copyRequestId(link, follower, action)).not.toBe(copyRequestId(link, follower, { ...action, position: position({ id: `${id}x` }) }));
      }),
    );
  });
});
