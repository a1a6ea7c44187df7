// @vitest-environment node
/**
 * Flexible Leverage's rule engine on hand-worked examples (docs/flexible-leverage.md): a book of
 * rules and a table of accounts with the leverage and reason each gets; time windows on the days
 * clocks change in London and New York; validation messages and warnings; the preview's counts and
 * "what if". The properties over generated rules are in ./flexibleLeverageProperties.test.ts.
 */
import { describe, expect, it } from "vitest";
import {
  FlexibleLeverageSettingsSchema,
  compileRules,
  evaluateAccount,
  formatManagersParameter,
  parseManagersParameter,
  preview,
  ruleWarnings,
  type FlexibleLeverageSettingsInput,
  type LeverageAccount,
  type LeveragePosition,
} from "../../core/flexibleLeverage/index.ts";

const usd = (amount: number) => Math.round(amount * 100);
const at = (iso: string) => Date.parse(iso);
const account = (patch: Partial<LeverageAccount> = {}): LeverageAccount => ({
  login: "1001",
  group: "real\\usd",
  currency: "USD",
  equity: usd(1_000),
  leverage: 500,
  positions: [],
  ...patch,
});
const position = (symbol: string, lots: number, patch: Partial<LeveragePosition> = {}): LeveragePosition => ({
  symbol,
  lots,
  notional: usd(lots * 100_000),
  openedBeforeChange: false,
  ...patch,
});

/** A book as a risk manager would write it (London server). */
const BOOK: FlexibleLeverageSettingsInput = {
  managers: ["9001"],
  rules: [
    {
      name: "Weekend",
      groups: "real*",
      mode: "equity",
      windows: [{ kind: "weekend", from: { day: "friday", time: "21:00" }, to: { day: "sunday", time: "21:00" }, leverage: 100 }],
    },
    {
      name: "Gold",
      groups: "real*",
      symbols: "XAU*,Metals\\*",
      mode: "equity",
      tiers: [
        { threshold: 0, leverage: 200 },
        { threshold: 50_000, leverage: 50 },
        { threshold: 200_000, leverage: 20 },
      ],
    },
    {
      name: "Indices",
      groups: "real*,!real\\vip*",
      symbols: "Indices\\*",
      mode: "exposureLots",
      countExistingPositions: false,
      tiers: [
        { threshold: 1, leverage: 100 },
        { threshold: 10, leverage: 50 },
      ],
    },
    { name: "Disabled", active: false, groups: "*", mode: "equity", tiers: [{ threshold: 0, leverage: 1 }] },
    {
      name: "Equity ladder",
      groups: "real*",
      mode: "equity",
      maxLeverage: 300,
      tiers: [
        { threshold: 1_000, leverage: 500 },
        { threshold: 10_000, leverage: 200 },
        { threshold: 100_000, leverage: 100 },
      ],
    },
    {
      name: "NFP",
      groups: "demo*",
      mode: "exposureNotional",
      tiers: [{ threshold: 1_000_000, leverage: 50 }],
      windows: [{ kind: "news", name: "NFP", date: "2026-12-04", time: "13:30", durationMinutes: 30, leverage: 20 }],
    },
  ],
};
const compiled = compileRules(BOOK, { timeZone: "Europe/London" });
const WEDNESDAY = at("2026-12-02T12:00:00Z");

describe("the book, account by account", () => {
  /** "XAUUSD 1, Indices\US500 12 old": symbol and lots, "old" when opened before the rules changed. */
  const positionsOf = (text: string) =>
    text === ""
      ? []
      : text.split(",").map((part) => {
          const [symbol, lots, old] = part.trim().split(" ");
          return position(symbol!, Number(lots), { openedBeforeChange: old === "old" });
        });
  const WED = "2026-12-02T12:00Z";

  // Equity in the account's currency; the time is UTC (London is on GMT in December).
  it.each`
    what                                                  | group              | currency | equity     | positions                              | time                   | groupMax | leverage | reason
    ${"small equity, no position: below every rule"}      | ${"real\\usd"}     | ${"USD"} | ${500}     | ${""}                                  | ${WED}                 | ${1000}  | ${1000}  | ${"no rule matches: group default 1:1000"}
    ${"equity 5,000: the first tier, capped by the rule"} | ${"real\\usd"}     | ${"USD"} | ${5_000}   | ${""}                                  | ${WED}                 | ${1000}  | ${300}   | ${"rule 'Equity ladder', tier ≥ 1,000 USD equity → 1:500, capped at the rule's maximum 1:300"}
    ${"equity 60,000"}                                    | ${"real\\usd"}     | ${"USD"} | ${60_000}  | ${""}                                  | ${WED}                 | ${1000}  | ${200}   | ${"rule 'Equity ladder', tier ≥ 10,000 USD equity → 1:200"}
    ${"equity exactly 100,000 (≥ threshold)"}             | ${"real\\usd"}     | ${"USD"} | ${100_000} | ${""}                                  | ${WED}                 | ${1000}  | ${100}   | ${"rule 'Equity ladder', tier ≥ 100,000 USD equity → 1:100"}
    ${"a group whose default is lower caps"}              | ${"real\\usd"}     | ${"USD"} | ${60_000}  | ${""}                                  | ${WED}                 | ${150}   | ${150}   | ${"rule 'Equity ladder', tier ≥ 10,000 USD equity → 1:200, capped at the group's maximum 1:150"}
    ${"holding gold: the Gold rule comes first"}          | ${"real\\usd"}     | ${"USD"} | ${60_000}  | ${"XAUUSD 1"}                          | ${WED}                 | ${1000}  | ${50}    | ${"rule 'Gold', tier ≥ 50,000 USD equity → 1:50"}
    ${"silver by its MT5 path (Metals\\*)"}               | ${"real\\usd"}     | ${"USD"} | ${20_000}  | ${"Metals\\Spot\\XAGUSD 1"}            | ${WED}                 | ${1000}  | ${200}   | ${"rule 'Gold', tier ≥ 0 USD equity → 1:200"}
    ${"an EUR account's reason names its currency"}       | ${"real\\eur"}     | ${"EUR"} | ${250_000} | ${"XAUEUR 1"}                          | ${WED}                 | ${1000}  | ${20}    | ${"rule 'Gold', tier ≥ 200,000 EUR equity → 1:20"}
    ${"12 lots of indices opened after the change"}       | ${"real\\usd"}     | ${"USD"} | ${500}     | ${"Indices\\US500 5, Indices\\DE40 7"} | ${WED}                 | ${1000}  | ${50}    | ${"rule 'Indices', tier ≥ 10 lots exposure → 1:50"}
    ${"indices opened before the change do not count"}    | ${"real\\usd"}     | ${"USD"} | ${500}     | ${"Indices\\US500 12 old"}             | ${WED}                 | ${1000}  | ${1000}  | ${"no rule matches: group default 1:1000"}
    ${"a VIP group is excluded from Indices"}             | ${"real\\vip"}     | ${"USD"} | ${2_000}   | ${"Indices\\US500 12"}                 | ${WED}                 | ${1000}  | ${300}   | ${"rule 'Equity ladder', tier ≥ 1,000 USD equity → 1:500, capped at the rule's maximum 1:300"}
    ${"Saturday: the weekend window decides"}             | ${"real\\usd"}     | ${"USD"} | ${60_000}  | ${"XAUUSD 1"}                          | ${"2026-12-05T10:00Z"} | ${1000}  | ${100}   | ${"rule 'Weekend', weekend window → 1:100"}
    ${"Friday 20:59: not the weekend yet"}                | ${"real\\usd"}     | ${"USD"} | ${60_000}  | ${""}                                  | ${"2026-12-04T20:59Z"} | ${1000}  | ${200}   | ${"rule 'Equity ladder', tier ≥ 10,000 USD equity → 1:200"}
    ${"Sunday 21:00: the weekend is over"}                | ${"real\\usd"}     | ${"USD"} | ${60_000}  | ${""}                                  | ${"2026-12-06T21:00Z"} | ${1000}  | ${200}   | ${"rule 'Equity ladder', tier ≥ 10,000 USD equity → 1:200"}
    ${"a demo account with 1,000,000 notional"}           | ${"demo\\usd"}     | ${"USD"} | ${1_000}   | ${"EURUSD 10"}                         | ${WED}                 | ${1000}  | ${50}    | ${"rule 'NFP', tier ≥ 1,000,000 USD exposure → 1:50"}
    ${"a demo account during NFP"}                        | ${"demo\\usd"}     | ${"USD"} | ${1_000}   | ${""}                                  | ${"2026-12-04T13:45Z"} | ${1000}  | ${20}    | ${"rule 'NFP', news window 'NFP' → 1:20"}
    ${"a demo account right after NFP"}                   | ${"demo\\usd"}     | ${"USD"} | ${1_000}   | ${""}                                  | ${"2026-12-04T14:00Z"} | ${1000}  | ${1000}  | ${"no rule matches: group default 1:1000"}
    ${"a group no rule names"}                            | ${"manager\\test"} | ${"USD"} | ${60_000}  | ${""}                                  | ${WED}                 | ${100}   | ${100}   | ${"no rule matches: group default 1:100"}
  `("$what", ({ group, currency, equity, positions, time, groupMax, leverage, reason }) => {
    const who = account({ group, currency, equity: usd(equity), positions: positionsOf(positions) });
    const decision = evaluateAccount(compiled, who, groupMax, at(time));
    expect({ leverage: decision.leverage, reason: decision.reason }).toEqual({ leverage, reason });
  });

  it("tells which rule, tier and window decided", () => {
    const gold = evaluateAccount(compiled, account({ equity: usd(60_000), positions: [position("XAUUSD", 1)] }), 1000, WEDNESDAY);
    expect(gold).toMatchObject({ ruleIndex: 1, ruleName: "Gold", mode: "equity", tierIndex: 1, windowIndex: null, windowKind: null, cappedBy: null });
    const weekend = evaluateAccount(compiled, account({ equity: usd(60_000) }), 1000, at("2026-12-05T10:00:00Z"));
    expect(weekend).toMatchObject({ ruleIndex: 0, ruleName: "Weekend", tierIndex: null, windowIndex: 0, windowKind: "weekend" });
  });

  it("when two windows of a rule are open, the first listed gives the leverage", () => {
    const rules = compileRules(
      {
        rules: [
          {
            name: "Calendar",
            groups: "*",
            mode: "equity",
            windows: [
              { kind: "weekend", from: { day: "friday", time: "21:00" }, to: { day: "monday", time: "00:00" }, leverage: 100 },
              { kind: "news", name: "Gap", date: "2026-12-05", time: "09:00", durationMinutes: 120, leverage: 20 },
            ],
          },
        ],
      },
      { timeZone: "UTC" },
    );
    expect(evaluateAccount(rules, account(), 500, at("2026-12-05T10:00:00Z"))).toMatchObject({ leverage: 100, windowIndex: 0, windowKind: "weekend" });
  });

  it("never takes an inactive rule", () => {
    const rules = compileRules(
      { rules: [{ name: "Off", active: false, groups: "*", mode: "equity", tiers: [{ threshold: 0, leverage: 10 }] }] },
      { timeZone: "UTC" },
    );
    expect(evaluateAccount(rules, account(), 500, WEDNESDAY)).toMatchObject({ leverage: 500, ruleIndex: null });
  });
});

describe("time windows on the days clocks change", () => {
  const newsAt = (timeZone: string, date: string, time: string, durationMinutes: number) =>
    compileRules(
      { rules: [{ name: "News", groups: "*", mode: "equity", windows: [{ kind: "news", date, time, durationMinutes, leverage: 10 }] }] },
      { timeZone },
    );
  const open = (rules: ReturnType<typeof compileRules>, iso: string) => evaluateAccount(rules, account(), 500, at(iso)).windowKind !== null;

  it("London, spring (01:00 → 02:00): a window at 01:30 opens when the clock jumps past it, at 02:00 BST", () => {
    const rules = newsAt("Europe/London", "2026-03-29", "01:30", 30);
    expect(open(rules, "2026-03-29T00:59:59Z")).toBe(false); // 00:59:59 GMT
    expect(open(rules, "2026-03-29T01:00:00Z")).toBe(true); // 02:00 BST
    expect(open(rules, "2026-03-29T01:29:59Z")).toBe(true);
    expect(open(rules, "2026-03-29T01:30:00Z")).toBe(false); // 30 minutes later
  });

  it("London, autumn (02:00 → 01:00): a window at 01:30 opens at the first 01:30 (BST), not the second (GMT)", () => {
    const rules = newsAt("Europe/London", "2026-10-25", "01:30", 30);
    expect(open(rules, "2026-10-25T00:29:59Z")).toBe(false);
    expect(open(rules, "2026-10-25T00:30:00Z")).toBe(true); // 01:30 BST
    expect(open(rules, "2026-10-25T00:59:59Z")).toBe(true);
    expect(open(rules, "2026-10-25T01:00:00Z")).toBe(false); // 01:00 GMT
    expect(open(rules, "2026-10-25T01:30:00Z")).toBe(false); // 01:30 GMT, the second one
  });

  it("New York, spring (02:00 → 03:00): a 60-minute window at 01:30 EST lasts 60 minutes, to 03:30 EDT", () => {
    const rules = newsAt("America/New_York", "2026-03-08", "01:30", 60);
    expect(open(rules, "2026-03-08T06:29:59Z")).toBe(false);
    expect(open(rules, "2026-03-08T06:30:00Z")).toBe(true); // 01:30 EST
    expect(open(rules, "2026-03-08T07:29:59Z")).toBe(true); // 03:29:59 EDT
    expect(open(rules, "2026-03-08T07:30:00Z")).toBe(false);
  });

  it("New York, autumn (02:00 → 01:00): a window at 01:30 is the first 01:30 (EDT)", () => {
    const rules = newsAt("America/New_York", "2026-11-01", "01:30", 30);
    expect(open(rules, "2026-11-01T05:30:00Z")).toBe(true); // 01:30 EDT
    expect(open(rules, "2026-11-01T06:00:00Z")).toBe(false); // 01:00 EST
    expect(open(rules, "2026-11-01T06:30:00Z")).toBe(false); // 01:30 EST
  });

  it("a weekend window ending on Sunday 01:30 in New York closes at the first 01:30 on the autumn Sunday", () => {
    const rules = compileRules(
      {
        rules: [
          {
            name: "Weekend",
            groups: "*",
            mode: "equity",
            windows: [{ kind: "weekend", from: { day: "saturday", time: "22:00" }, to: { day: "sunday", time: "01:30" }, leverage: 10 }],
          },
        ],
      },
      { timeZone: "America/New_York" },
    );
    expect(open(rules, "2026-11-01T01:59:59Z")).toBe(false); // Saturday 21:59:59 EDT
    expect(open(rules, "2026-11-01T02:00:00Z")).toBe(true); // Saturday 22:00 EDT
    expect(open(rules, "2026-11-01T05:29:59Z")).toBe(true); // Sunday 01:29:59 EDT
    expect(open(rules, "2026-11-01T05:30:00Z")).toBe(false); // the first 01:30
    expect(open(rules, "2026-11-01T06:15:00Z")).toBe(false); // 01:15 EST: the clock reads inside again, the window stays closed
    expect(open(rules, "2026-11-08T02:59:59Z")).toBe(false); // next Saturday 21:59:59 EST
    expect(open(rules, "2026-11-08T03:00:00Z")).toBe(true); // 22:00 EST
  });

  it("a London weekend window from Friday 21:00 GMT to Monday 00:00 BST spans the spring change", () => {
    const rules = compileRules(
      {
        rules: [
          {
            name: "Weekend",
            groups: "*",
            mode: "equity",
            windows: [{ kind: "weekend", from: { day: "friday", time: "21:00" }, to: { day: "monday", time: "00:00" }, leverage: 10 }],
          },
        ],
      },
      { timeZone: "Europe/London" },
    );
    expect(open(rules, "2026-03-27T20:59:59Z")).toBe(false);
    expect(open(rules, "2026-03-27T21:00:00Z")).toBe(true);
    expect(open(rules, "2026-03-29T12:00:00Z")).toBe(true);
    expect(open(rules, "2026-03-29T22:59:59Z")).toBe(true); // Sunday 23:59:59 BST
    expect(open(rules, "2026-03-29T23:00:00Z")).toBe(false); // Monday 00:00 BST
  });
});

describe("validation", () => {
  const issues = (settings: unknown) => {
    const result = FlexibleLeverageSettingsSchema.safeParse(settings);
    return result.success ? [] : result.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
  };
  const rule = (patch: Record<string, unknown>) => ({
    name: "Gold",
    groups: "real*",
    mode: "equity" as const,
    tiers: [{ threshold: 0, leverage: 100 }],
    ...patch,
  });

  it("refuses thresholds that do not go strictly up, naming the tier", () => {
    const tiers = [
      { threshold: 0, leverage: 500 },
      { threshold: 50_000, leverage: 100 },
      { threshold: 50_000, leverage: 50 },
      { threshold: 10_000, leverage: 20 },
    ];
    expect(issues({ rules: [rule({ tiers })] })).toEqual([
      { path: "rules.0.tiers.2.threshold", message: "Tier 3's threshold (50,000) must be above tier 2's (50,000): thresholds go strictly up" },
      { path: "rules.0.tiers.3.threshold", message: "Tier 4's threshold (10,000) must be above tier 3's (50,000): thresholds go strictly up" },
    ]);
  });

  it.each([
    ["an empty group mask", rule({ groups: " " }), "rules.0.groups", "The group mask cannot be empty: write * for every group"],
    ["a leverage of 0", rule({ tiers: [{ threshold: 0, leverage: 0 }] }), "rules.0.tiers.0.leverage", "A tier's leverage must be at least 1 (1:1)"],
    ["a negative threshold", rule({ tiers: [{ threshold: -1, leverage: 100 }] }), "rules.0.tiers.0.threshold", "A tier's threshold cannot be negative"],
    ["three decimals", rule({ tiers: [{ threshold: 0.125, leverage: 100 }] }), "rules.0.tiers.0.threshold", "A tier's threshold has at most 2 decimals"],
    ["an unknown mode", rule({ mode: "balance" }), "rules.0.mode", "The mode must be equity, exposureLots or exposureNotional"],
    ["no tier and no window", rule({ tiers: [] }), "rules.0.tiers", "Rule 'Gold' needs at least one tier or one time window"],
    [
      "a time of 24:00",
      rule({ windows: [{ kind: "weekend", from: { day: "friday", time: "24:00" }, to: { day: "sunday", time: "21:00" }, leverage: 100 }] }),
      "rules.0.windows.0.from.time",
      'The time must be a time from 00:00 to 23:59, such as "21:00"',
    ],
    [
      "a weekend window of no length",
      rule({ windows: [{ kind: "weekend", from: { day: "friday", time: "21:00" }, to: { day: "friday", time: "21:00" }, leverage: 100 }] }),
      "rules.0.windows.0.to",
      "A weekend window must end at another time than it starts",
    ],
    [
      "31 February",
      rule({ windows: [{ kind: "news", date: "2026-02-31", time: "13:30", durationMinutes: 30, leverage: 100 }] }),
      "rules.0.windows.0.date",
      'The date must be a calendar date written as "2026-12-04"',
    ],
    ["two rules of one name", { rules: [rule({}), rule({ name: "gold" })] }, "rules.1.name", "Rules 1 and 2 are both named 'gold': a rule's name is unique"],
    ["a manager twice", { managers: ["1000", "1000"], rules: [] }, "managers.1", "Manager 1000 is listed twice"],
  ])("refuses %s", (_, input, path, message) => {
    const settings = "rules" in input ? input : { rules: [input] };
    expect(issues(settings)).toEqual([{ path, message }]);
  });

  it("fills the defaults: active, every symbol, no maximum, existing positions count", () => {
    const parsed = FlexibleLeverageSettingsSchema.parse({ rules: [rule({})] });
    expect(parsed).toEqual({
      managers: [],
      rules: [{ ...rule({}), active: true, symbols: "*", windows: [], maxLeverage: null, countExistingPositions: true }],
    });
  });

  it("the engine refuses what the schema refuses, and an unknown time zone", () => {
    expect(() =>
      compileRules(
        {
          rules: [
            rule({
              tiers: [
                { threshold: 5, leverage: 100 },
                { threshold: 1, leverage: 50 },
              ],
            }),
          ],
        },
        { timeZone: "UTC" },
      ),
    ).toThrow(/Tier 2's threshold/);
    expect(() => compileRules({ rules: [] }, { timeZone: "Mars/Olympus" })).toThrow(/not an IANA time zone/);
  });

  it("reads and writes the Managers parameter", () => {
    expect(parseManagersParameter(" 1000, 1001;1002 1000 ")).toEqual(["1000", "1001", "1002"]);
    expect(formatManagersParameter(["1000", "1001"])).toBe("1000,1001");
  });
});

describe("warnings", () => {
  const settings = FlexibleLeverageSettingsSchema.parse({
    rules: [
      { name: "Gold", groups: "reel*,real*", symbols: "Metals\\*,XAU*", mode: "equity", maxLeverage: 100, tiers: [{ threshold: 0, leverage: 200 }] },
      { name: "All out", groups: "real*,!real*", symbols: "*", mode: "equity", tiers: [{ threshold: 0, leverage: 100 }] },
      {
        name: "Crypto",
        groups: "*",
        symbols: "Crypto\\*",
        mode: "exposureLots",
        windows: [{ kind: "news", date: "2026-01-09", time: "13:30", durationMinutes: 30, leverage: 10 }],
      },
    ],
  });

  it("warns about masks that match nothing, leverage above the rule's maximum, and news already over", () => {
    const warnings = ruleWarnings(settings, {
      groups: ["real\\usd", "demo\\usd"],
      symbols: ["Forex\\Majors\\EURUSD", "Metals\\XAUUSD"],
      at: WEDNESDAY,
      timeZone: "Europe/London",
    });
    expect(warnings.map((w) => [w.path.join("."), w.message])).toEqual([
      ["rules.0.groups", "Rule 'Gold': the group mask 'reel*' matches no group on the server"],
      ["rules.0.tiers.0.leverage", "Rule 'Gold', tier 1: 1:200 is above the rule's maximum 1:100, so it gives 1:100"],
      ["rules.1.groups", "Rule 'All out': its groups 'real*,!real*' leave no group on the server once the exclusions are applied"],
      ["rules.2.symbols", "Rule 'Crypto': the symbol mask 'Crypto\\*' matches no symbol on the server"],
      ["rules.2.windows.0", "Rule 'Crypto', window 1: the news window of 2026-01-09 13:30 is over"],
    ]);
  });

  it("has nothing to say when every mask finds something", () => {
    expect(
      ruleWarnings(settings, { groups: ["reel", "real\\usd", "demo"], symbols: ["Crypto\\BTCUSD", "Metals\\XAUUSD"] }).filter(
        (w) => w.path[2] !== "tiers" && w.ruleIndex !== 1,
      ),
    ).toEqual([]);
  });
});

describe("preview", () => {
  const groupLeverage = new Map([
    ["real\\usd", 1000],
    ["demo\\usd", 500],
  ]);
  const population = [
    account({ login: "1", equity: usd(60_000), leverage: 500 }),
    account({ login: "2", equity: usd(5_000), leverage: 300 }),
    account({ login: "3", equity: usd(60_000), leverage: 200, positions: [position("XAUUSD", 1)] }),
    account({ login: "4", group: "demo\\usd", leverage: 500 }),
    account({ login: "5", group: "gone\\usd", leverage: 100 }),
  ];

  it("gives every account its rule, leverage and reason, what changes, and the counts", () => {
    const result = preview(compiled, population, { at: WEDNESDAY, groupLeverage });
    expect(result.rows.map((r) => [r.login, r.ruleName, r.currentLeverage, r.leverage, r.changed, r.reason])).toEqual([
      ["1", "Equity ladder", 500, 200, true, "rule 'Equity ladder', tier ≥ 10,000 USD equity → 1:200"],
      ["2", "Equity ladder", 300, 300, false, "rule 'Equity ladder', tier ≥ 1,000 USD equity → 1:500, capped at the rule's maximum 1:300"],
      ["3", "Gold", 200, 50, true, "rule 'Gold', tier ≥ 50,000 USD equity → 1:50"],
      ["4", null, 500, 500, false, "no rule matches: group default 1:500"],
      ["5", null, 100, 100, false, "group 'gone\\usd' is not on the server: leverage stays 1:100"],
    ]);
    expect(result).toMatchObject({ at: WEDNESDAY, whatIf: false });
    const { byRule, ...counts } = result.counts;
    expect(counts).toEqual({ accounts: 5, matched: 3, unmatched: 1, unknownGroup: 1, changed: 2, raised: 0, lowered: 2 });
    expect(byRule.filter((r) => r.accounts > 0)).toEqual([
      { ruleIndex: 1, ruleName: "Gold", accounts: 1, changed: 1 },
      { ruleIndex: 4, ruleName: "Equity ladder", accounts: 2, changed: 1 },
    ]);
  });

  it("what if it were Saturday: the weekend window takes every real account", () => {
    const saturday = at("2026-12-05T10:00:00Z");
    const result = preview(compiled, population, { at: WEDNESDAY, groupLeverage, whatIf: { at: saturday } });
    expect(result).toMatchObject({ at: saturday, whatIf: true });
    expect(result.rows.slice(0, 3).map((r) => [r.login, r.leverage, r.reason])).toEqual([
      ["1", 100, "rule 'Weekend', weekend window → 1:100"],
      ["2", 100, "rule 'Weekend', weekend window → 1:100"],
      ["3", 100, "rule 'Weekend', weekend window → 1:100"],
    ]);
  });

  it("what if one account had 250,000 equity, or all had 500", () => {
    const one = preview(compiled, population, { at: WEDNESDAY, groupLeverage, whatIf: { equity: new Map([["3", usd(250_000)]]) } });
    expect(one.rows.map((r) => [r.login, r.equity, r.leverage])).toEqual([
      ["1", usd(60_000), 200],
      ["2", usd(5_000), 300],
      ["3", usd(250_000), 20],
      ["4", usd(1_000), 500],
      ["5", usd(1_000), 100],
    ]);
    const all = preview(compiled, population, { at: WEDNESDAY, groupLeverage, whatIf: { equity: usd(500) } });
    expect(all.rows.map((r) => r.leverage)).toEqual([1000, 1000, 200, 500, 100]);
    expect(all.counts).toMatchObject({ changed: 2, raised: 2, lowered: 0 });
  });
});
