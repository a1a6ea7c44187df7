import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ByteRate, streamBound } from "../../../server/modules/tradesBlotter/byteRate.ts";

describe("a blotter channel's byte rate and its streams' bound", () => {
  it("rises within the first window of a burst, keeps the last window's rate, and forgets a long pause", () => {
    let now = 0;
    const rate = new ByteRate(1_000, () => now);
    expect(rate.perSecond()).toBe(0);
    // 400 kB per 50 ms frame (about 20,000 rows a second): after 100 ms it already reads 800 kB/s.
    rate.add(400_000);
    now = 50;
    rate.add(400_000);
    expect(rate.perSecond()).toBe(800_000);
    for (now = 100; now < 1_000; now += 50) rate.add(400_000);
    expect(rate.perSecond()).toBe(8_000_000);
    // The next window starts quiet: the last whole window's rate holds.
    now = 1_000;
    rate.add(1_000);
    expect(rate.perSecond()).toBe(8_000_000);
    // A window of 1 kB ends: the rate falls to it.
    now = 2_000;
    expect(rate.perSecond()).toBe(1_000);
    // Nothing for longer than two windows: nothing is kept.
    now = 5_000;
    expect(rate.perSecond()).toBe(0);
  });

  it("bounds a stream by seconds of its channel's bytes, within the floor and the cap", () => {
    const floor = 512 * 1024;
    const cap = 8 * 1024 * 1024;
    expect(streamBound(0, 1, floor, cap)).toBe(floor);
    expect(streamBound(2_000_000, 1, floor, cap)).toBe(2_000_000);
    expect(streamBound(50_000_000, 1, floor, cap)).toBe(cap);
    fc.assert(
      fc.property(fc.nat(1e9), fc.double({ min: 0, max: 10, noNaN: true }), fc.nat(1e8), fc.nat(1e8), (rate, seconds, a, b) => {
        const bound = streamBound(rate, seconds, a, b);
        // The floor always holds (it wins when set above the cap); under it, the cap holds.
        expect(bound).toBeGreaterThanOrEqual(a);
        if (a <= b) expect(bound).toBeLessThanOrEqual(b);
      }),
    );
  });
});
