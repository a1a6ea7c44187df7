/**
 * Time windows on the server's clock (docs/flexible-leverage.md "Time windows"). A window is open
 * from the first instant the server's clock reads its start to the first instant it reads its end
 * (./zonedTime.ts): weekly for a weekend window, once for a news window, whose duration is
 * elapsed minutes (a 60-minute window across the spring jump still lasts 60 minutes).
 */
import type { TimeWindow } from "./schema.ts";
import { WEEK_DAYS } from "./schema.ts";
import { DAY_MS, MINUTE_MS, dayOfWallClock, instantOfWallClock, minutesOfTime, wallClockFrom, wallClockOf } from "./zonedTime.ts";

const WEEK_MINUTES = 7 * 24 * 60;

export type CompiledWindow =
  | { kind: "weekend"; leverage: number; text: string; fromWeekday: number; fromMinutes: number; spanMinutes: number }
  | { kind: "news"; leverage: number; text: string; start: number; end: number };

export function compileWindow(window: TimeWindow, timeZone: string): CompiledWindow {
  if (window.kind === "news") {
    const start = instantOfWallClock(wallClockFrom(window.date, window.time), timeZone);
    const label = window.name ? `news window '${window.name}'` : `news window ${window.date} ${window.time}`;
    return { kind: "news", leverage: window.leverage, text: label, start, end: start + window.durationMinutes * MINUTE_MS };
  }
  const fromWeekday = WEEK_DAYS.indexOf(window.from.day) + 1;
  const toWeekday = WEEK_DAYS.indexOf(window.to.day) + 1;
  const fromMinutes = minutesOfTime(window.from.time);
  const from = (fromWeekday - 1) * 1440 + fromMinutes;
  const to = (toWeekday - 1) * 1440 + minutesOfTime(window.to.time);
  const spanMinutes = (((to - from) % WEEK_MINUTES) + WEEK_MINUTES) % WEEK_MINUTES;
  return { kind: "weekend", leverage: window.leverage, text: "weekend window", fromWeekday, fromMinutes, spanMinutes };
}

/**
 * Whether `window` is open at `at`. `wall` is the server's wall clock at `at` (computed once for
 * all windows of an instant).
 */
export function windowOpen(window: CompiledWindow, at: number, wall: number, timeZone: string): boolean {
  if (window.kind === "news") return window.start <= at && at < window.end;
  const { day, weekday } = dayOfWallClock(wall);
  const back = (weekday - window.fromWeekday + 7) % 7;
  // The latest occurrence that starts on or before today's date, then the one a week earlier
  // (still open when today's has not started yet); a window lasts less than a week.
  for (const weeks of [0, 1]) {
    const startDay = day - back - 7 * weeks;
    const startWall = startDay * DAY_MS + window.fromMinutes * MINUTE_MS;
    const start = instantOfWallClock(startWall, timeZone);
    if (start > at) continue;
    const end = instantOfWallClock(startWall + window.spanMinutes * MINUTE_MS, timeZone);
    return at < end;
  }
  return false;
}

/** For each window of each rule at `at`: the index of the first open window of a rule, or -1. */
export function openWindows(rules: readonly { windows: readonly CompiledWindow[] }[], at: number, timeZone: string): Int32Array {
  const open = new Int32Array(rules.length).fill(-1);
  let wall: number | undefined;
  rules.forEach((rule, r) => {
    for (let w = 0; w < rule.windows.length; w++) {
      const window = rule.windows[w]!;
      if (window.kind === "weekend") wall ??= wallClockOf(at, timeZone);
      if (windowOpen(window, at, wall ?? 0, timeZone)) {
        open[r] = w;
        break;
      }
    }
  });
  return open;
}
