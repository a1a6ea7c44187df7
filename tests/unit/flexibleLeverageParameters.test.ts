// @vitest-environment node
/**
 * Flexible Leverage's settings as plugin parameters (core/flexibleLeverage/parameters.ts): any valid
 * settings go into `Managers` + `Rules.1…N` of at most 127 ASCII characters each and come back the
 * same (fast-check, fixed seed); the plugin's other parameters are kept; a lone `Rules` is read;
 * what cannot be read says why.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FlexibleLeverageSettingsSchema, WEEK_DAYS } from "../../core/flexibleLeverage/index.ts";
import { RULES_CHUNK, decodeSettingsParameters, encodeSettingsParameters, rulesTextOf } from "../../core/flexibleLeverage/parameters.ts";

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20_261_128), numRuns: 200 });

const time = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
  .map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`);
const leverage = fc.integer({ min: 1, max: 10_000 });
const window = fc.oneof(
  fc.record({
    kind: fc.constant("weekend" as const),
    from: fc.record({ day: fc.constantFrom(...WEEK_DAYS), time }),
    to: fc.record({ day: fc.constantFrom(...WEEK_DAYS), time }),
    leverage,
  }),
  fc.record({
    kind: fc.constant("news" as const),
    name: fc.constantFrom("", "NFP", "Zinsentscheid €", "日銀"),
    date: fc.constantFrom("2026-12-04", "2027-01-29"),
    time,
    durationMinutes: fc.integer({ min: 1, max: 600 }),
    leverage,
  }),
);
const rule = fc.record({
  name: fc.string({ minLength: 1, maxLength: 20 }).map((s) => s.trim() || "r"),
  active: fc.boolean(),
  groups: fc.constantFrom("*", "real*", "real*,!real\\vip*", "démo\\€"),
  symbols: fc.constantFrom("*", "XAU*", "Forex\\*,!Forex\\Exotics\\*"),
  mode: fc.constantFrom("equity" as const, "exposureLots" as const, "exposureNotional" as const),
  tiers: fc
    .uniqueArray(fc.integer({ min: 0, max: 10_000_000 }), { maxLength: 6 })
    .chain((thresholds) => fc.tuple(...thresholds.sort((a, b) => a - b).map((t) => leverage.map((l) => ({ threshold: t / 100, leverage: l }))))),
  windows: fc.array(window, { maxLength: 3 }),
  maxLeverage: fc.option(leverage, { nil: null }),
  countExistingPositions: fc.boolean(),
});
const settings = fc
  .record({ managers: fc.uniqueArray(fc.integer({ min: 1, max: 99_999_999 }).map(String), { maxLength: 5 }), rules: fc.array(rule, { maxLength: 8 }) })
  .map((s) => FlexibleLeverageSettingsSchema.safeParse(s))
  .filter((r) => r.success)
  .map((r) => r.data);

describe("Flexible Leverage settings as plugin parameters", () => {
  it("round-trips any valid settings through chunks of at most 127 ASCII characters", () => {
    fc.assert(
      fc.property(settings, (s) => {
        const parameters = encodeSettingsParameters(s);
        expect(parameters[0]!.name).toBe("Managers");
        const chunks = parameters.slice(1);
        chunks.forEach((p, i) => {
          expect(p.name).toBe(`Rules.${i + 1}`);
          expect(p.value.length).toBeLessThanOrEqual(RULES_CHUNK);
          expect(p.value).toMatch(/^[\x20-\x7e]*$/);
        });
        const decoded = decodeSettingsParameters([...parameters].reverse());
        expect(decoded.ok).toBe(true);
        if (decoded.ok) expect(decoded.settings).toEqual(s);
      }),
    );
  });

  it("keeps the plugin's other parameters and replaces an old lone Rules", () => {
    const s = FlexibleLeverageSettingsSchema.parse({
      managers: ["1000"],
      rules: [{ name: "Gold", groups: "real*", symbols: "XAU*", mode: "equity", tiers: [{ threshold: 0, leverage: 100 }] }],
    });
    const parameters = encodeSettingsParameters(s, [
      { name: "Managers", value: "1" },
      { name: "Rules", value: "[]" },
      { name: "LogLevel", value: "2" },
    ]);
    expect(parameters).toEqual([
      { name: "Managers", value: "1000" },
      { name: "Rules.1", value: '[{"n":"Gold","g":"real*","s":"XAU*","m":"e","t":[[0,100]]}]' },
      { name: "LogLevel", value: "2" },
    ]);
  });

  it("reads a lone Rules parameter (a fresh plugin) and says why it cannot read others", () => {
    expect(
      decodeSettingsParameters([
        { name: "Managers", value: "1000, 1001" },
        { name: "Rules", value: "[]" },
      ]),
    ).toMatchObject({
      ok: true,
      settings: { managers: ["1000", "1001"], rules: [] },
    });
    expect(decodeSettingsParameters([{ name: "Rules", value: "{" }])).toMatchObject({ ok: false, message: expect.stringMatching(/not JSON/) });
    const bad = decodeSettingsParameters([
      { name: "Rules", value: '[{"name":"Gold","groups":"*","mode":"equity","tiers":[{"threshold":5,"leverage":10},{"threshold":5,"leverage":5}]}]' },
    ]);
    expect(bad).toMatchObject({ ok: false, message: expect.stringMatching(/Tier 2's threshold/) });
    expect(
      rulesTextOf([
        { name: "Rules.2", value: "b" },
        { name: "Rules.10", value: "c" },
        { name: "Rules.1", value: "a" },
      ]),
    ).toBe("abc");
  });
});
