/** The copies' P/L and drawdown (core/copier/profit.ts) against a brute-force reading of the same curve. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { copiesProfitOf } from "../../../core/copier/index.ts";

/** Every pair of points of the curve (0, the running sums, then the floating P/L added): the deepest fall from an earlier point to a later one. */
function bruteDrawdown(deals: number[], floating: number): number {
  const curve = [0];
  for (const d of deals) curve.push(curve[curve.length - 1]! + d);
  curve.push(curve[curve.length - 1]! + floating);
  let worst = 0;
  for (let i = 0; i < curve.length; i++) for (let j = i + 1; j < curve.length; j++) worst = Math.max(worst, curve[i]! - curve[j]!);
  return worst;
}

describe("copiesProfitOf", () => {
  it("sums the deals and the floating P/L, and measures the fall from the peak", () => {
    // +100, −30 (peak 100 → 70), +50 (120), −200 (−80): drawdown 200; floating +10 ends at −70.
    expect(copiesProfitOf([10_000, -3_000, 5_000, -20_000], 1_000)).toEqual({ realized: -8_000, floating: 1_000, total: -7_000, maxDrawdown: 20_000 });
    // A loss from the start counts from zero; an open loss counts too.
    expect(copiesProfitOf([-500], -250)).toEqual({ realized: -500, floating: -250, total: -750, maxDrawdown: 750 });
    expect(copiesProfitOf([], 0)).toEqual({ realized: 0, floating: 0, total: 0, maxDrawdown: 0 });
    expect(copiesProfitOf([100, 200], 50).maxDrawdown).toBe(0);
  });

  it("agrees with every pair of points of the curve, for any deals", () => {
    const money = fc.integer({ min: -10_000_000, max: 10_000_000 });
    fc.assert(
      fc.property(fc.array(money, { maxLength: 40 }), money, (deals, floating) => {
        const got = copiesProfitOf(deals, floating);
        expect(got.realized).toBe(deals.reduce((a, b) => a + b, 0));
        expect(got.total).toBe(got.realized + floating);
        expect(got.maxDrawdown).toBe(bruteDrawdown(deals, floating));
      }),
    );
  });
});
