// @vitest-environment node
/**
 * Dealing's pure rules (core/dealing, docs/dealing.md), with fast-check over generated schedules
 * (fixed seed; FC_SEED=<n> explores others), each against a reference written here:
 *  - the active profile is the one of the latest scheduled switch at or before now; the reference
 *    finds each switch by walking the zone's clock (Intl, 15-minute steps then minutes) to the
 *    first instant it reads the entry's time or later, so the DST switch days of London, New
 *    York and Sydney are covered by construction;
 *  - `since` and `next` are real switches (the profile differs just before them);
 *  - an override wins from its start until its end, and not a millisecond longer;
 *  - a holiday's profile holds the server's whole calendar day;
 *  - a symbol's markup overrides its group's; the schema's messages name what is wrong.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DealingSettingsSchema,
  WEEK_DAYS,
  activeProfile,
  markedUp,
  markupFor,
  type DealingOverride,
  type DealingSettings,
  type ExecutionProfile,
  type ScheduleEntry,
} from "../../core/dealing/index.ts";

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20_261_128), numRuns: 120 });

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ZONES = ["Europe/London", "America/New_York", "Australia/Sydney", "UTC"];
const PROFILES = ["normal", "news", "closing"];
/** Days around which clocks change in 2026 (London 29 Mar / 25 Oct, New York 8 Mar / 1 Nov, Sydney 5 Apr / 4 Oct), and a plain week. */
const AROUND = ["2026-03-29", "2026-10-25", "2026-03-08", "2026-11-01", "2026-04-05", "2026-10-04", "2026-06-10"].map((d) => Date.parse(`${d}T00:00:00Z`));

const profile = (name: string): ExecutionProfile => ({
  name,
  markups: [],
  maxDeviationPoints: null,
  executionDelayMs: 0,
  maxVolumeLots: null,
  staleQuoteMs: null,
});

// ---- the reference ------------------------------------------------------------------------

const parts = new Map<string, Intl.DateTimeFormat>();
/** The zone's clock at `at` as "YYYY-MM-DD HH:MM" plus its weekday (Monday 1), by Intl alone. */
function clock(at: number, zone: string): { text: string; weekday: number } {
  let f = parts.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-GB", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      weekday: "short",
    });
    parts.set(zone, f);
  }
  const p = Object.fromEntries(f.formatToParts(at).map((x) => [x.type, x.value]));
  return { text: `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`, weekday: ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].indexOf(p.weekday!) + 1 };
}

/** The first instant the zone's clock reads `date time` or later, walking from 15 hours before its UTC reading. */
function firstInstant(date: string, time: string, zone: string): number {
  const target = `${date} ${time}`;
  let t = Date.parse(`${date}T${time}:00Z`) - 15 * HOUR;
  while (clock(t, zone).text < target) t += 15 * MINUTE;
  while (clock(t - MINUTE, zone).text >= target) t -= MINUTE;
  return t;
}

/** The profile of the latest weekly switch at or before `at` (ties: the later entry), or null when there is none. */
function referenceWeekly(schedule: readonly ScheduleEntry[], at: number, zone: string): string | null {
  let best: { at: number; index: number; profile: string } | null = null;
  for (let back = 0; back <= 8; back++) {
    const day = new Date(at - back * DAY + 12 * HOUR);
    const date = day.toISOString().slice(0, 10);
    const weekday = ((day.getUTCDay() + 6) % 7) + 1;
    schedule.forEach((entry, index) => {
      if (WEEK_DAYS.indexOf(entry.day) + 1 !== weekday) return;
      const start = firstInstant(date, entry.time, zone);
      if (start > at) return;
      if (best === null || start > best.at || (start === best.at && index > best.index)) best = { at: start, index, profile: entry.profile };
    });
  }
  return best === null ? null : (best as { profile: string }).profile;
}

// ---- generators ---------------------------------------------------------------------------

const timeArb = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 15, 30, 45, 59))
  .map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`);
const scheduleArb = fc.uniqueArray(fc.record({ day: fc.constantFrom(...WEEK_DAYS), time: timeArb, profile: fc.constantFrom(...PROFILES) }), {
  minLength: 1,
  maxLength: 5,
  selector: (e) => `${e.day} ${e.time}`,
});
const settingsOf = (schedule: ScheduleEntry[], holidays: DealingSettings["holidays"] = []): DealingSettings => ({
  profiles: PROFILES.map(profile),
  defaultProfile: "normal",
  schedule,
  holidays,
});
/** An instant within three days of a clock change (or a plain week), on a whole minute or just off one. */
const instantArb = fc
  .tuple(fc.constantFrom(...AROUND), fc.integer({ min: -3 * 24 * 60, max: 3 * 24 * 60 }), fc.constantFrom(0, 0, -1, 1))
  .map(([base, minutes, ms]) => base + minutes * MINUTE + ms);

describe("activeProfile: the weekly schedule", () => {
  it("is the profile of the latest switch at or before now, in the server's zone, DST switch days included", () => {
    fc.assert(
      fc.property(scheduleArb, instantArb, fc.constantFrom(...ZONES), (schedule, at, zone) => {
        const active = activeProfile(settingsOf(schedule), [], at, zone);
        expect(active.profile).toBe(referenceWeekly(schedule, at, zone));
        expect(active.reason.kind).toBe("schedule");
      }),
    );
  });

  it("since and next are real switches: another profile just before each, this one from since, the next from next", () => {
    fc.assert(
      fc.property(scheduleArb, instantArb, fc.constantFrom(...ZONES), (schedule, at, zone) => {
        const settings = settingsOf(schedule);
        const active = activeProfile(settings, [], at, zone);
        if (active.since !== null) {
          expect(active.since).toBeLessThanOrEqual(at);
          expect(activeProfile(settings, [], active.since, zone).profile).toBe(active.profile);
          expect(activeProfile(settings, [], active.since - 1, zone).profile).not.toBe(active.profile);
        }
        if (active.next !== null) {
          expect(active.next.at).toBeGreaterThan(at);
          expect(activeProfile(settings, [], active.next.at - 1, zone).profile).toBe(active.profile);
          expect(activeProfile(settings, [], active.next.at, zone).profile).toBe(active.next.profile);
          expect(active.next.profile).not.toBe(active.profile);
        }
        // Only one profile in the schedule and the default is the same: nothing ever switches.
        if (new Set([...schedule.map((e) => e.profile)]).size > 1) expect(active.next).not.toBeNull();
      }),
    );
  });

  it("starts a time the spring jump skips at the jump, and a time the autumn repeats at its first reading", () => {
    const schedule: ScheduleEntry[] = [
      { day: "sunday", time: "01:30", profile: "news" },
      { day: "saturday", time: "12:00", profile: "normal" },
    ];
    // London, 29 March 2026: 01:00 GMT → 02:00 BST; 01:30 never happens, the jump (01:00 UTC) starts it.
    const spring = activeProfile(settingsOf(schedule), [], Date.parse("2026-03-29T00:59:59Z"), "Europe/London");
    expect(spring.profile).toBe("normal");
    expect(spring.next).toMatchObject({ at: Date.parse("2026-03-29T01:00:00Z"), profile: "news", reason: { text: "Schedule: sunday 01:30" } });
    // London, 25 October 2026: 01:30 BST (00:30 UTC) comes first, then 01:30 GMT again.
    const autumn = activeProfile(settingsOf(schedule), [], Date.parse("2026-10-25T00:00:00Z"), "Europe/London");
    expect(autumn.next?.at).toBe(Date.parse("2026-10-25T00:30:00Z"));
    expect(activeProfile(settingsOf(schedule), [], Date.parse("2026-10-25T01:15:00Z"), "Europe/London").profile).toBe("news");
    // New York, 8 March 2026: 02:30 is skipped; the jump is 07:00 UTC.
    const ny = activeProfile(
      settingsOf([
        { day: "sunday", time: "02:30", profile: "news" },
        { day: "monday", time: "00:00", profile: "normal" },
      ]),
      [],
      Date.parse("2026-03-08T06:00:00Z"),
      "America/New_York",
    );
    expect(ny.next?.at).toBe(Date.parse("2026-03-08T07:00:00Z"));
  });

  it("answers the default profile, without a next switch, when there is no schedule", () => {
    const active = activeProfile(settingsOf([]), [], Date.parse("2026-06-10T10:00:00Z"), "UTC");
    expect(active).toEqual({ profile: "normal", reason: { kind: "default", text: "Default profile (no schedule entry applies)" }, since: null, next: null });
  });
});

describe("activeProfile: overrides and holidays", () => {
  it("an override wins from its start until its end, then the schedule is back", () => {
    fc.assert(
      fc.property(
        scheduleArb,
        instantArb,
        fc.constantFrom(...ZONES),
        fc.integer({ min: 1, max: 3 * 24 * 60 }),
        fc.constantFrom(...PROFILES),
        (schedule, from, zone, minutes, name) => {
          const settings = settingsOf(schedule);
          const override: DealingOverride = { profile: name, from, until: from + minutes * MINUTE };
          const inside = from + Math.floor((minutes * MINUTE) / 2);
          expect(activeProfile(settings, [override], from, zone)).toMatchObject({ profile: name, reason: { kind: "override" } });
          expect(activeProfile(settings, [override], inside, zone)).toMatchObject({ profile: name, reason: { kind: "override" } });
          expect(activeProfile(settings, [override], override.until - 1, zone).profile).toBe(name);
          const after = activeProfile(settings, [override], override.until, zone);
          expect(after.reason.kind).toBe("schedule");
          expect(after.profile).toBe(referenceWeekly(schedule, override.until, zone));
          // While it holds, the next switch is its end (or later, when the schedule says the same profile then).
          const during = activeProfile(settings, [override], from, zone);
          if (during.next) expect(during.next.at).toBeGreaterThanOrEqual(override.until);
        },
      ),
    );
  });

  it("a holiday's profile holds the server's whole calendar day, DST days included", () => {
    const settings = settingsOf([{ day: "monday", time: "00:00", profile: "normal" }], [{ date: "2026-03-29", name: "Clocks", profile: "closing" }]);
    const zone = "Europe/London";
    expect(activeProfile(settings, [], Date.parse("2026-03-28T23:59:59Z"), zone).profile).toBe("normal");
    const start = activeProfile(settings, [], Date.parse("2026-03-29T00:00:00Z"), zone);
    expect(start).toMatchObject({
      profile: "closing",
      reason: { kind: "holiday", text: "Holiday 2026-03-29 (Clocks)" },
      since: Date.parse("2026-03-29T00:00:00Z"),
    });
    // The day is 23 hours long: midnight BST is 23:00 UTC.
    expect(start.next).toMatchObject({ at: Date.parse("2026-03-29T23:00:00Z"), profile: "normal", reason: { kind: "schedule" } });
  });
});

describe("markups", () => {
  const p: ExecutionProfile = {
    ...profile("news"),
    markups: [
      { kind: "group", target: "Forex", bidPoints: 5, askPoints: 5 },
      { kind: "group", target: "Forex\\Majors", bidPoints: 8, askPoints: 12 },
      { kind: "symbol", target: "EURUSD", bidPoints: 10, askPoints: 10 },
    ],
  };
  it("a symbol's own markup overrides its group's, the deepest group wins, none leaves the quote alone", () => {
    expect(markupFor(p, { name: "EURUSD", path: "Forex\\Majors\\EURUSD" })).toEqual({ bidPoints: 10, askPoints: 10, from: "symbol EURUSD" });
    expect(markupFor(p, { name: "GBPUSD", path: "Forex\\Majors\\GBPUSD" })).toEqual({ bidPoints: 8, askPoints: 12, from: "group Forex\\Majors" });
    expect(markupFor(p, { name: "USDTRY", path: "Forex\\Exotics\\USDTRY" })).toEqual({ bidPoints: 5, askPoints: 5, from: "group Forex" });
    expect(markupFor(p, { name: "XAUUSD", path: "Metals\\XAUUSD" })).toEqual({ bidPoints: 0, askPoints: 0, from: "none" });
    expect(markupFor(p, { name: "FX", path: "ForexPlus\\FX" }).from).toBe("none");
  });
  it("widens the spread by exactly the markup's points", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 10_000, max: 200_000 }),
        fc.integer({ min: 0, max: 50 }),
        fc.nat(500),
        fc.nat(500),
        (digits, bidSteps, spread, b, a) => {
          const point = 10 ** -digits;
          const bid = Number((bidSteps * point).toFixed(digits));
          const ask = Number(((bidSteps + spread) * point).toFixed(digits));
          const q = markedUp({ bid, ask }, { bidPoints: b, askPoints: a }, digits);
          expect(Math.round((q.ask - q.bid) / point)).toBe(spread + a + b);
        },
      ),
    );
  });
});

describe("the settings schema", () => {
  const valid = {
    profiles: [profile("normal"), profile("news")],
    defaultProfile: "normal",
    schedule: [{ day: "friday", time: "21:00", profile: "news" }],
    holidays: [],
  };
  const messages = (input: unknown) => {
    const result = DealingSettingsSchema.safeParse(input);
    return result.success ? [] : result.error.issues.map((i) => i.message);
  };
  it("accepts a valid set and names every problem of a wrong one", () => {
    expect(messages(valid)).toEqual([]);
    expect(messages({ ...valid, profiles: [profile("normal"), profile("normal")] })).toContain('Two profiles are named "normal"');
    expect(messages({ ...valid, defaultProfile: "calm" })).toContain('Default profile "calm" is not one of the profiles');
    expect(messages({ ...valid, schedule: [{ day: "friday", time: "21:00", profile: "calm" }] })).toContain(
      'Schedule entry friday 21:00 names no profile "calm"',
    );
    expect(messages({ ...valid, schedule: [...valid.schedule, { day: "friday", time: "21:00", profile: "normal" }] })).toContain(
      "Two schedule entries switch at friday 21:00",
    );
    expect(messages({ ...valid, schedule: [{ day: "friday", time: "25:00", profile: "news" }] })).toContain(
      'Time must be from 00:00 to 23:59, such as "21:00"',
    );
    expect(messages({ ...valid, holidays: [{ date: "2026-02-30", profile: "news" }] })).toContain('Holiday date must be a real date such as "2026-12-25"');
    expect(
      messages({ ...valid, profiles: [{ ...profile("normal"), markups: [{ kind: "symbol", target: "EURUSD", bidPoints: -1, askPoints: 2 }] }] }),
    ).toContain("Bid markup cannot be negative");
    expect(
      messages({
        ...valid,
        profiles: [
          {
            ...profile("normal"),
            markups: [
              { kind: "symbol", target: "EURUSD", bidPoints: 1, askPoints: 2 },
              { kind: "symbol", target: "eurusd", bidPoints: 1, askPoints: 2 },
            ],
          },
        ],
      }),
    ).toContain('Symbol eurusd has two markups in profile "normal"');
    expect(messages({ ...valid, profiles: [{ ...profile("normal"), maxVolumeLots: 0 }] })).toContain("Maximum volume per order must be more than 0 lots");
    expect(messages({ ...valid, profiles: [] })).toContain("Add at least one execution profile");
  });
});
