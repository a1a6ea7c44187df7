/**
 * Which execution profile is in force at an instant, why, and when it next changes
 * (docs/dealing.md "Which profile is in force"). Precedence: a manual override (from its start
 * until its end), then a holiday (the server's whole calendar day), then the weekly schedule (the
 * latest entry whose time has come), then the default profile. Times are the server's wall clock
 * in its IANA time zone; a wall-clock time starts at the FIRST instant the server's clock reads it
 * or later (core/flexibleLeverage/zonedTime.ts): the spring gap's 02:30 is the jump itself, the
 * autumn overlap's 01:30 is the first one.
 */
import { DAY_MS, MINUTE_MS, dayOfWallClock, instantOfWallClock, minutesOfTime, wallClockFrom, wallClockOf } from "../flexibleLeverage/zonedTime.ts";
import { WEEK_DAYS, type DealingOverride, type DealingSettings, type ExecutionProfile } from "./schema.ts";

export type ReasonKind = "override" | "holiday" | "schedule" | "default";

export interface ActiveReason {
  kind: ReasonKind;
  /** "Schedule: friday 21:00", "Holiday 2026-12-25 (Christmas)", "Manual override until 2026-11-28 18:00". */
  text: string;
}

export interface ProfileSwitch {
  at: number;
  profile: string;
  reason: ActiveReason;
}

export interface ActiveProfile {
  profile: string;
  reason: ActiveReason;
  /** When this profile came into force (the latest switch at or before the instant), null when not within the last 8 days. */
  since: number | null;
  /** The next instant at which another profile comes into force, null when none within 8 days. */
  next: ProfileSwitch | null;
}

/** How far back and ahead schedules are searched: a week and a day covers every weekly entry. */
export const HORIZON_MS = 8 * DAY_MS;

/** The weekly schedule's switches within [from, to], oldest first (ties: the later entry in the list wins). */
export function weeklySwitches(settings: DealingSettings, timeZone: string, from: number, to: number): ProfileSwitch[] {
  if (settings.schedule.length === 0) return [];
  const firstDay = dayOfWallClock(wallClockOf(from, timeZone)).day - 1;
  const lastDay = dayOfWallClock(wallClockOf(to, timeZone)).day + 1;
  const out: ProfileSwitch[] = [];
  for (let day = firstDay; day <= lastDay; day++) {
    const { weekday } = dayOfWallClock(day * DAY_MS);
    for (const entry of settings.schedule) {
      if (WEEK_DAYS.indexOf(entry.day) + 1 !== weekday) continue;
      const at = instantOfWallClock(day * DAY_MS + minutesOfTime(entry.time) * MINUTE_MS, timeZone);
      if (at < from || at > to) continue;
      out.push({ at, profile: entry.profile, reason: { kind: "schedule", text: `Schedule: ${entry.day} ${entry.time}` } });
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

interface HolidaySpan {
  start: number;
  end: number;
  profile: string;
  text: string;
}

function holidaySpans(settings: DealingSettings, timeZone: string): HolidaySpan[] {
  return settings.holidays.map((h) => {
    const wall = wallClockFrom(h.date, "00:00");
    return {
      start: instantOfWallClock(wall, timeZone),
      end: instantOfWallClock(wall + DAY_MS, timeZone),
      profile: h.profile,
      text: `Holiday ${h.date}${h.name ? ` (${h.name})` : ""}`,
    };
  });
}

/** The override in force at `at`: the latest started of those not yet ended. */
export function overrideAt(overrides: readonly DealingOverride[], at: number): DealingOverride | null {
  let found: DealingOverride | null = null;
  for (const o of overrides) if (o.from <= at && at < o.until && (found === null || o.from >= found.from)) found = o;
  return found;
}

function formatInstant(at: number, timeZone: string): string {
  return new Date(wallClockOf(at, timeZone)).toISOString().slice(0, 16).replace("T", " ");
}

/** A precomputed view of one platform's settings around an instant. */
class Timeline {
  private readonly weekly: ProfileSwitch[];
  private readonly holidays: HolidaySpan[];

  constructor(
    private readonly settings: DealingSettings,
    private readonly overrides: readonly DealingOverride[],
    private readonly timeZone: string,
    around: number,
  ) {
    this.weekly = weeklySwitches(settings, timeZone, around - 2 * HORIZON_MS, around + HORIZON_MS);
    this.holidays = holidaySpans(settings, timeZone);
  }

  stateAt(at: number): { profile: string; reason: ActiveReason } {
    const override = overrideAt(this.overrides, at);
    if (override)
      return { profile: override.profile, reason: { kind: "override", text: `Manual override until ${formatInstant(override.until, this.timeZone)}` } };
    const holiday = this.holidays.find((h) => h.start <= at && at < h.end);
    if (holiday) return { profile: holiday.profile, reason: { kind: "holiday", text: holiday.text } };
    let latest: ProfileSwitch | undefined;
    for (const s of this.weekly) {
      if (s.at > at) break;
      latest = s;
    }
    if (latest) return { profile: latest.profile, reason: latest.reason };
    return { profile: this.settings.defaultProfile, reason: { kind: "default", text: "Default profile (no schedule entry applies)" } };
  }

  /** Every instant within [from, to] at which the answer of `stateAt` may change. */
  candidates(from: number, to: number): number[] {
    const all = [
      ...this.weekly.map((s) => s.at),
      ...this.holidays.flatMap((h) => [h.start, h.end]),
      ...this.overrides.flatMap((o) => [o.from, o.until]),
    ].filter((at) => at >= from && at <= to);
    return [...new Set(all)].sort((a, b) => a - b);
  }
}

/** The profile in force at `at` (epoch ms) on a server in `timeZone`, why, since when, and the next switch. */
export function activeProfile(settings: DealingSettings, overrides: readonly DealingOverride[], at: number, timeZone: string): ActiveProfile {
  const timeline = new Timeline(settings, overrides, timeZone, at);
  const now = timeline.stateAt(at);
  let since: number | null = null;
  const back = timeline.candidates(at - HORIZON_MS, at);
  for (let i = back.length - 1; i >= 0; i--) {
    const c = back[i]!;
    if (timeline.stateAt(c - 1).profile !== now.profile) {
      since = c;
      break;
    }
  }
  let next: ProfileSwitch | null = null;
  for (const c of timeline.candidates(at + 1, at + HORIZON_MS)) {
    const then = timeline.stateAt(c);
    if (then.profile !== now.profile) {
      next = { at: c, ...then };
      break;
    }
  }
  return { ...now, since, next };
}

/** The profile named `name` (the default profile when none is: settings always name existing profiles once validated). */
export function profileNamed(settings: DealingSettings, name: string): ExecutionProfile {
  return settings.profiles.find((p) => p.name === name) ?? settings.profiles.find((p) => p.name === settings.defaultProfile) ?? settings.profiles[0]!;
}
