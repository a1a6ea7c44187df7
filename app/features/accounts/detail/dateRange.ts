/** A day range as the date inputs hold it ("2025-11-14"), and as the API wants it (ISO instants). */
export interface DayRange {
  from: string;
  to: string;
}

const day = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;

/** The last seven days, today included. */
export function lastDays(days = 7, now = new Date()): DayRange {
  const from = new Date(now);
  from.setDate(from.getDate() - (days - 1));
  return { from: day(from), to: day(now) };
}

/** From the start of the first day to the end of the last, in this browser's time zone. */
export function rangeToIso(range: DayRange): { from: string; to: string } | null {
  const from = new Date(`${range.from}T00:00:00`);
  const to = new Date(`${range.to}T23:59:59.999`);
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()) || from > to) return null;
  return { from: from.toISOString(), to: to.toISOString() };
}
