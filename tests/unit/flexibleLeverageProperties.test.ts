// @vitest-environment node
/**
 * Properties of Flexible Leverage's rule engine over generated rules and accounts (fast-check,
 * fixed seed; FC_SEED=<n> explores others), each against a reference written here from the rules
 * in docs/flexible-leverage.md:
 *  - the first rule that applies wins (a plain loop over the rules, regular-expression masks);
 *  - the leverage is never above the group's default nor the rule's maximum, never below 1;
 *  - crossing a threshold up and back down gives the first leverage back (no memory);
 *  - windows on the days clocks change in London and New York open and close where the local
 *    clock says: at the first instant the clock reads their start (a minute-by-minute table of the
 *    zone's clock, made with Intl here, is the reference);
 *  - tiers whose thresholds do not go strictly up are refused, naming the tier.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  FlexibleLeverageSettingsSchema,
  WEEK_DAYS,
  compileRules,
  evaluateAccount,
  type FlexibleLeverageSettings,
  type LeverageAccount,
  type LeverageMode,
  type Rule,
  type WeekDay,
} from "../../core/flexibleLeverage/index.ts";

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20_261_128), numRuns: 300 });

const GROUPS = ["real\\usd", "real\\eur", "real\\vip\\usd", "demo\\usd", "pro\\gbp"];
const GROUP_MASKS = ["*", "real*", "real*,!real\\vip*", "demo*", "*,!demo*", "pro\\gbp", "nothing*", "REAL\\USD"];
const SYMBOLS = ["Forex\\Majors\\EURUSD", "Metals\\XAUUSD", "Indices\\US500", "Crypto\\BTCUSD", "GBPUSD"];
const SYMBOL_MASKS = ["*", "XAU*", "Forex\\*", "*,!Crypto\\*", "Indices\\*,Metals\\*", "EURUSD,GBPUSD", "!Forex\\*"];
const WEEK_START = Date.UTC(2026, 5, 1); // Monday 1 June 2026
const HOUR = 3_600_000;

// ---- the reference ------------------------------------------------------------------------

const patternRegex = (pattern: string) => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`, "is");

/** `*` any run, `!` excludes first; a symbol pattern without a backslash looks at the name only. */
function referenceMask(mask: string, name: string, isSymbol: boolean): boolean {
  const parts = mask.split(",").map((p) => p.trim());
  const test = (pattern: string) => patternRegex(pattern).test(isSymbol && !pattern.includes("\\") ? name.split("\\").at(-1)! : name);
  if (parts.some((p) => p.startsWith("!") && test(p.slice(1)))) return false;
  const includes = parts.filter((p) => !p.startsWith("!"));
  return includes.length === 0 || includes.some(test);
}

function referenceEvaluate(settings: FlexibleLeverageSettings, account: LeverageAccount, groupLeverage: number, at: number) {
  for (const [i, rule] of settings.rules.entries()) {
    if (!rule.active || !referenceMask(rule.groups, account.group, false)) continue;
    const counted = account.positions.filter((p) => (rule.countExistingPositions || !p.openedBeforeChange) && referenceMask(rule.symbols, p.symbol, true));
    if (rule.symbols !== "*" && counted.length === 0) continue;
    const window = rule.windows.find((w) => {
      if (w.kind !== "news") throw new Error("only news windows here");
      const start = Date.parse(`${w.date}T${w.time}:00Z`);
      return start <= at && at < start + w.durationMinutes * 60_000;
    });
    let wanted: number | undefined = window?.leverage;
    if (wanted === undefined) {
      // In whole cents and hundredths of a lot, so no float rounding decides a boundary.
      const value =
        rule.mode === "equity"
          ? account.equity
          : rule.mode === "exposureLots"
            ? counted.reduce((sum, p) => sum + Math.round(p.lots * 100), 0)
            : counted.reduce((sum, p) => sum + p.notional, 0);
      wanted = rule.tiers.filter((t) => Math.round(t.threshold * 100) <= value).at(-1)?.leverage;
    }
    if (wanted === undefined) continue;
    return { ruleIndex: i, leverage: Math.min(wanted, rule.maxLeverage ?? Infinity, groupLeverage) };
  }
  return { ruleIndex: null, leverage: groupLeverage };
}

// ---- generators ---------------------------------------------------------------------------

const leverageArb = fc.integer({ min: 1, max: 1000 });
const modeArb = fc.constantFrom<LeverageMode>("equity", "exposureLots", "exposureNotional");
const tiersArb = (mode: LeverageMode) =>
  fc
    .uniqueArray(fc.integer({ min: 0, max: 200 }), { maxLength: 4 })
    .chain((steps) =>
      fc.tuple(
        ...steps.sort((a, b) => a - b).map((s) => leverageArb.map((leverage) => ({ threshold: mode === "exposureLots" ? s / 10 : s * 1000, leverage }))),
      ),
    );
const newsArb = fc
  .record({ minutes: fc.integer({ min: 0, max: 7 * 24 * 60 - 1 }), durationMinutes: fc.integer({ min: 1, max: 24 * 60 }), leverage: leverageArb })
  .map(({ minutes, durationMinutes, leverage }) => {
    const start = new Date(WEEK_START + minutes * 60_000).toISOString();
    return { kind: "news" as const, name: "", date: start.slice(0, 10), time: start.slice(11, 16), durationMinutes, leverage };
  });
const ruleArb = (name: string): fc.Arbitrary<Rule> =>
  modeArb.chain((mode) =>
    fc
      .record({
        active: fc.integer({ min: 0, max: 4 }).map((n) => n > 0),
        groups: fc.constantFrom(...GROUP_MASKS),
        symbols: fc.constantFrom(...SYMBOL_MASKS),
        tiers: tiersArb(mode),
        windows: fc.array(newsArb, { maxLength: 2 }),
        maxLeverage: fc.option(leverageArb, { nil: null }),
        countExistingPositions: fc.boolean(),
      })
      .map((r) => ({ name, mode, ...r, tiers: r.tiers.length === 0 && r.windows.length === 0 ? [{ threshold: 0, leverage: 100 }] : r.tiers })),
  );
const settingsArb: fc.Arbitrary<FlexibleLeverageSettings> = fc
  .integer({ min: 0, max: 6 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => ruleArb(`Rule ${i + 1}`))))
  .map((rules) => FlexibleLeverageSettingsSchema.parse({ managers: [], rules }));
const positionArb = fc.record({
  symbol: fc.constantFrom(...SYMBOLS),
  lots: fc.integer({ min: 1, max: 3000 }).map((k) => k / 100),
  notional: fc.integer({ min: 0, max: 50_000_000 }),
  openedBeforeChange: fc.boolean(),
});
const accountArb: fc.Arbitrary<LeverageAccount> = fc.record({
  login: fc.constant("1001"),
  group: fc.constantFrom(...GROUPS),
  currency: fc.constantFrom("USD", "EUR"),
  equity: fc.integer({ min: -1_000_000, max: 30_000_000 }),
  leverage: leverageArb,
  positions: fc.array(positionArb, { maxLength: 4 }),
});
const atArb = fc.integer({ min: WEEK_START - HOUR, max: WEEK_START + 8 * 24 * HOUR });

// ---- properties ---------------------------------------------------------------------------

describe("evaluation", () => {
  it("the first rule that applies wins, with the leverage the reference gives", () => {
    fc.assert(
      fc.property(settingsArb, accountArb, leverageArb, atArb, (settings, account, groupLeverage, at) => {
        const decision = evaluateAccount(compileRules(settings, { timeZone: "UTC" }), account, groupLeverage, at);
        expect({ ruleIndex: decision.ruleIndex, leverage: decision.leverage }).toEqual(referenceEvaluate(settings, account, groupLeverage, at));
      }),
    );
  });

  it("never gives more than the group's default or the rule's maximum, nor less than 1:1", () => {
    fc.assert(
      fc.property(settingsArb, fc.array(accountArb, { minLength: 1, maxLength: 20 }), leverageArb, atArb, (settings, accounts, groupLeverage, at) => {
        const compiled = compileRules(settings, { timeZone: "UTC" });
        for (const account of accounts) {
          const d = evaluateAccount(compiled, account, groupLeverage, at);
          expect(Number.isInteger(d.leverage)).toBe(true);
          expect(d.leverage).toBeGreaterThanOrEqual(1);
          expect(d.leverage).toBeLessThanOrEqual(groupLeverage);
          if (d.ruleIndex !== null) expect(d.leverage).toBeLessThanOrEqual(settings.rules[d.ruleIndex]!.maxLeverage ?? Infinity);
          expect(d.cappedBy === null).toBe(!d.reason.includes("capped"));
          // One compiled set for many accounts: its group and symbol caches change no answer.
          expect(d.leverage).toBe(referenceEvaluate(settings, account, groupLeverage, at).leverage);
        }
      }),
    );
  });

  it("crossing a threshold up and back down gives the first leverage back", () => {
    fc.assert(
      fc.property(
        settingsArb,
        accountArb,
        fc.integer({ min: -1_000_000, max: 30_000_000 }),
        fc.array(positionArb, { minLength: 1, maxLength: 4 }),
        leverageArb,
        atArb,
        (settings, account, otherEquity, morePositions, groupLeverage, at) => {
          const compiled = compileRules(settings, { timeZone: "UTC" });
          const first = evaluateAccount(compiled, account, groupLeverage, at);
          // Equity up (or down) and back; exposure up and back.
          evaluateAccount(compiled, { ...account, equity: otherEquity }, groupLeverage, at);
          expect(evaluateAccount(compiled, account, groupLeverage, at)).toEqual(first);
          evaluateAccount(compiled, { ...account, positions: [...account.positions, ...morePositions] }, groupLeverage, at);
          expect(evaluateAccount(compiled, account, groupLeverage, at)).toEqual(first);
        },
      ),
    );
  });

  it("an equity ladder crossed upwards lowers the leverage step by step, and the way down retraces it", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 500 }), { minLength: 2, maxLength: 6 }), (steps) => {
        const thresholds = [...steps].sort((a, b) => a - b).map((s) => s * 1000);
        const tiers = thresholds.map((threshold, i) => ({ threshold, leverage: 500 - i * 50 }));
        const compiled = compileRules({ rules: [{ name: "Ladder", groups: "*", mode: "equity", tiers }] }, { timeZone: "UTC" });
        const at = WEEK_START;
        const path = [0, ...thresholds.flatMap((t) => [t - 0.01, t]), thresholds.at(-1)! + 1].map((amount) => Math.round(amount * 100));
        const up = path.map(
          (equity) => evaluateAccount(compiled, { login: "1", group: "real", currency: "USD", equity, leverage: 500, positions: [] }, 1000, at).leverage,
        );
        const down = [...path]
          .reverse()
          .map((equity) => evaluateAccount(compiled, { login: "1", group: "real", currency: "USD", equity, leverage: 500, positions: [] }, 1000, at).leverage);
        expect(down).toEqual([...up].reverse());
        // Just below a threshold the tier under it, at the threshold the tier itself.
        thresholds.forEach((_, i) => {
          expect(up[1 + 2 * i]).toBe(i === 0 ? 1000 : tiers[i - 1]!.leverage);
          expect(up[2 + 2 * i]).toBe(tiers[i]!.leverage);
        });
      }),
    );
  });
});

// ---- daylight saving ----------------------------------------------------------------------

/** The days clocks change in 2026, and the instant they do. */
const SWITCHES: [string, string, number][] = [
  ["Europe/London", "2026-03-29", Date.parse("2026-03-29T01:00:00Z")],
  ["Europe/London", "2026-10-25", Date.parse("2026-10-25T01:00:00Z")],
  ["America/New_York", "2026-03-08", Date.parse("2026-03-08T07:00:00Z")],
  ["America/New_York", "2026-11-01", Date.parse("2026-11-01T06:00:00Z")],
];
/** An instant on a switch day: half of them within 3 hours of the switch itself. */
const aroundArb = fc.oneof(
  fc.record({ near: fc.constant(false), offset: fc.integer({ min: -6 * HOUR, max: 30 * HOUR }) }),
  fc.record({ near: fc.constant(true), offset: fc.integer({ min: -3 * HOUR, max: 3 * HOUR }) }),
);
const instantOf = ([, date, switchAt]: [string, string, number], { near, offset }: { near: boolean; offset: number }) =>
  (near ? switchAt : Date.parse(`${date}T00:00:00Z`)) + offset;
const DAY = 86_400_000;

/** The zone's clock, minute by minute from 9 days before the switch to 9 days after: [instant, "YYYY-MM-DD HH:MM"]. */
const clockTables = new Map<string, [number, string][]>();
function clockTable(timeZone: string, date: string): [number, string][] {
  const key = `${timeZone} ${date}`;
  let table = clockTables.get(key);
  if (!table) {
    const format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
    });
    const from = Date.parse(`${date}T00:00:00Z`) - 9 * DAY;
    table = [];
    for (let at = from; at < from + 18 * DAY; at += 60_000) {
      const p = Object.fromEntries(format.formatToParts(at).map((part) => [part.type, part.value]));
      table.push([at, `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`]);
    }
    clockTables.set(key, table);
  }
  return table;
}
/**
 * The first instant the clock reads `wall` or later. The scan starts 2 hours before `wall` read as
 * UTC: both zones' offsets are at most +1 hour, so every reading before that is earlier than `wall`.
 */
function firstReading(table: [number, string][], wall: string): number {
  const from = Math.floor((Date.parse(`${wall.replace(" ", "T")}:00Z`) - 2 * HOUR - table[0]![0]) / 60_000);
  if (from < 1) throw new Error(`${wall} is outside the table`);
  for (let i = from; i < table.length; i++) if (table[i]![1] >= wall) return table[i]![0];
  throw new Error(`${wall} is outside the table`);
}
const wallPlus = (date: string, time: string, minutes: number) =>
  new Date(Date.parse(`${date}T${time}:00Z`) + minutes * 60_000).toISOString().slice(0, 16).replace("T", " ");
const timeArb = fc
  .record({ h: fc.integer({ min: 0, max: 3 }), m: fc.integer({ min: 0, max: 59 }) })
  .map(({ h, m }) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`);

describe("windows on the days clocks change (London, New York)", () => {
  it("a news window opens at the first instant the local clock reads its time and lasts its minutes", () => {
    fc.assert(
      fc.property(fc.constantFrom(...SWITCHES), timeArb, fc.integer({ min: 1, max: 180 }), aroundArb, (zoneDay, time, durationMinutes, around) => {
        const [timeZone, date] = zoneDay;
        const at = instantOf(zoneDay, around);
        const compiled = compileRules(
          { rules: [{ name: "News", groups: "*", mode: "equity", windows: [{ kind: "news", date, time, durationMinutes, leverage: 10 }] }] },
          { timeZone },
        );
        const start = firstReading(clockTable(timeZone, date), `${date} ${time}`);
        const open = start <= at && at < start + durationMinutes * 60_000;
        expect(evaluateAccount(compiled, { login: "1", group: "g", currency: "USD", equity: 0, leverage: 100, positions: [] }, 100, at).windowKind).toBe(
          open ? "news" : null,
        );
      }),
      { numRuns: 400 },
    );
  });

  it("a weekend window opens and closes where the local clock reads its start and its end", () => {
    // Sunday (the switch day) half of the time, so that starts and ends fall in the changed hour.
    const dayArb = fc.oneof(fc.constant<WeekDay>("sunday"), fc.constantFrom<WeekDay>(...WEEK_DAYS));
    fc.assert(
      fc.property(
        fc.constantFrom(...SWITCHES),
        fc.record({ day: dayArb, time: timeArb }),
        fc.record({ day: dayArb, time: timeArb }),
        aroundArb,
        (zoneDay, from, to, around) => {
          fc.pre(from.day !== to.day || from.time !== to.time);
          const [timeZone, date] = zoneDay;
          const at = instantOf(zoneDay, around);
          const compiled = compileRules(
            { rules: [{ name: "Weekend", groups: "*", mode: "equity", windows: [{ kind: "weekend", from, to, leverage: 10 }] }] },
            { timeZone },
          );
          const table = clockTable(timeZone, date);
          const fromIndex = WEEK_DAYS.indexOf(from.day);
          const span = ((((WEEK_DAYS.indexOf(to.day) - fromIndex) * 1440 + minutes(to.time) - minutes(from.time)) % 10080) + 10080) % 10080;
          let open = false;
          for (let d = -8; d <= 1; d++) {
            const day = new Date(Date.parse(`${date}T00:00:00Z`) + d * DAY);
            if ((day.getUTCDay() + 6) % 7 !== fromIndex) continue;
            const startDate = day.toISOString().slice(0, 10);
            const start = firstReading(table, `${startDate} ${from.time}`);
            const end = firstReading(table, wallPlus(startDate, from.time, span));
            if (start <= at && at < end) open = true;
          }
          expect(evaluateAccount(compiled, { login: "1", group: "g", currency: "USD", equity: 0, leverage: 100, positions: [] }, 100, at).windowKind).toBe(
            open ? "weekend" : null,
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

function minutes(time: string): number {
  const [h, m] = time.split(":").map(Number) as [number, number];
  return h * 60 + m;
}

// ---- validation ---------------------------------------------------------------------------

describe("validation", () => {
  it("refuses a ladder exactly where its thresholds stop going up, naming the tier", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.integer({ min: 0, max: 20 }).map((n) => n * 500),
          { minLength: 1, maxLength: 6 },
        ),
        (thresholds) => {
          const tiers = thresholds.map((threshold) => ({ threshold, leverage: 100 }));
          const result = FlexibleLeverageSettingsSchema.safeParse({ rules: [{ name: "Ladder", groups: "*", mode: "equity", tiers }] });
          const wrong = thresholds.flatMap((t, i) => (i > 0 && !(t > thresholds[i - 1]!) ? [i] : []));
          expect(result.success).toBe(wrong.length === 0);
          const issues = result.success ? [] : result.error.issues;
          expect(issues.map((issue) => issue.path.join("."))).toEqual(wrong.map((i) => `rules.0.tiers.${i}.threshold`));
          issues.forEach((issue, k) => expect(issue.message).toMatch(new RegExp(`^Tier ${wrong[k]! + 1}'s threshold .* must be above tier ${wrong[k]}'s`)));
          // And the engine refuses to compile them.
          if (wrong.length > 0) expect(() => compileRules({ rules: [{ name: "Ladder", groups: "*", mode: "equity", tiers }] }, { timeZone: "UTC" })).toThrow();
        },
      ),
    );
  });
});
