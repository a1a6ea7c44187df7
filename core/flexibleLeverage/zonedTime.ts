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

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formats.set(timeZone, format);
  }
  return format;
}

/** Whether the runtime knows `timeZone` (an IANA name; offsets such as "+02:00" are refused). */
export function knownTimeZone(timeZone: string): boolean {
  if (timeZone.trim() === "" || /^[+\-\d]/.test(timeZone)) return false;
  try {
    formatOf(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock of instant `at` (epoch ms) in `timeZone`, as ms read as UTC. */
export function wallClockOf(at: number, timeZone: string): number {
  let year = 1970;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  for (const part of formatOf(timeZone).formatToParts(at)) {
    switch (part.type) {
      case "year":
        year = Number(part.value);
        break;
      case "month":
        month = Number(part.value);
        break;
      case "day":
        day = Number(part.value);
        break;
      case "hour":
        hour = Number(part.value) % 24;
        break;
      case "minute":
        minute = Number(part.value);
        break;
      case "second":
        second = Number(part.value);
        break;
    }
  }
  const wholeSecond = Math.floor(at / 1000) * 1000;
  return Date.UTC(year, month - 1, day, hour, minute, second) + (at - wholeSecond);
}

/** The zone's offset from UTC at `at`, in ms (London in summer: 3,600,000). */
export function offsetAt(at: number, timeZone: string): number {
  return wallClockOf(at, timeZone) - at;
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
