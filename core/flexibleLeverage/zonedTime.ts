/**
 * The server's wall clock in its IANA time zone, with the runtime's own Intl data (the project
 * has no date library: docs/flexible-leverage.md "Time windows").
 *
 * A wall-clock time is held as the milliseconds that time would be in UTC ("2026-03-29 01:30"
 * local → Date.UTC(2026, 2, 29, 1, 30)). Turning one back into an instant follows the rule the
 * windows are documented with: a local time starts at the FIRST instant at which the server's
 * clock reads that time or later. In the autumn overlap (01:30 happens twice) that is the first
 * 01:30; in the spring gap (01:30 never happens in London) it is the jump itself (01:00 UTC,
 * when the clock goes from 00:59:59 to 02:00).
 */

import { zoneOffsetMinutes } from "../format.ts";
import { isTimeZone } from "../schemas/timeZone.ts";

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** Whether the runtime knows `timeZone` (an IANA name; offsets such as "+02:00" are refused). */
export const knownTimeZone = isTimeZone;

/** The wall clock of instant `at` (epoch ms) in `timeZone`, as ms read as UTC. */
export function wallClockOf(at: number, timeZone: string): number {
  return at + offsetAt(at, timeZone);
}

/** The zone's offset from UTC at `at`, in ms (London in summer: 3,600,000). */
export function offsetAt(at: number, timeZone: string): number {
  return zoneOffsetMinutes(at, timeZone) * MINUTE_MS;
}

/**
 * The first instant at which the clock of `timeZone` reads `wall` or later (see the top of this
 * file). Assumes at most one change of offset within a day of `wall`, true of every zone in use.
 */
export function instantOfWallClock(wall: number, timeZone: string): number {
  const before = offsetAt(wall - DAY_MS, timeZone);
  const after = offsetAt(wall + DAY_MS, timeZone);
  if (before === after) return wall - before;
  const candidates = [wall - before, wall - after].filter((at) => wallClockOf(at, timeZone) === wall);
  if (candidates.length > 0) return Math.min(...candidates);
  // In the gap: the clock jumps over `wall`. The jump is the first instant with the new offset,
  // found by halving between an instant before it and one after it (whole seconds).
  let lo = Math.min(wall - before, wall - after);
  let hi = Math.max(wall - before, wall - after);
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (offsetAt(mid, timeZone) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Days since 1970-01-01 of a wall clock, and its ISO weekday (Monday 1 … Sunday 7). */
export function dayOfWallClock(wall: number): { day: number; weekday: number } {
  const day = Math.floor(wall / DAY_MS);
  return { day, weekday: ((((day + 3) % 7) + 7) % 7) + 1 };
}

/** "2026-12-04" and "15:30" → the wall clock they name. */
export function wallClockFrom(date: string, time: string): number {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  return Date.UTC(y, m - 1, d) + minutesOfTime(time) * MINUTE_MS;
}

/** "21:30" → 1290. */
export function minutesOfTime(time: string): number {
  const [h, m] = time.split(":").map(Number) as [number, number];
  return h * 60 + m;
}
