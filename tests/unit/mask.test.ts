// @vitest-environment node
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileMask, wildcardMatch } from "../../core/trading/mask";

/** The obvious reference: a regular expression, fine for short patterns. */
function reference(pattern: string, text: string) {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(`^${escaped}$`, "s").test(text);
}

describe("group and symbol masks", () => {
  it("matches exactly what the regular-expression reading of the mask matches", () => {
    const alphabet = fc.constantFrom("a", "b", "*", "\\", ".", "%");
    fc.assert(
      fc.property(fc.string({ unit: alphabet, maxLength: 8 }), fc.string({ unit: fc.constantFrom("a", "b", "\\", ".", "%"), maxLength: 10 }), (p, t) => {
        expect(wildcardMatch(p, t)).toBe(reference(p, t));
      }),
      { seed: 42, numRuns: 2000 },
    );
  });

  it("answers a mask full of stars at once instead of back-tracking (it used to freeze the server)", () => {
    const hostile = `${"*".repeat(400)}x`;
    const group = "real\\".padEnd(300, "a");
    expect(compileMask(hostile)(group)).toBe(false);
    expect(compileMask(`${"*".repeat(400)}a`)(group)).toBe(true);
  });

  it("keeps the platforms' rules: exclusions first, case-insensitive, empty matches all", () => {
    const mask = compileMask("*,!demo*");
    expect(mask("real\\USD")).toBe(true);
    expect(mask("DEMO\\usd")).toBe(false);
    expect(compileMask("REAL*")("real\\eur")).toBe(true);
    expect(compileMask("")("anything")).toBe(true);
    expect(compileMask("!demo*")("real")).toBe(true);
  });
});
