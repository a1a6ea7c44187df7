/** Time zones on the server side: offsets and the server clock's wire format (the names are checked in core/schemas/timeZone.ts). */

/** Offset from UTC in minutes of `timeZone` at `at` (e.g. 120 for Europe/Athens in winter). */
export function offsetMinutesAt(timeZone: string, at: number = Date.now()): number {
  const part = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" }).formatToParts(at).find((p) => p.type === "timeZoneName")?.value;
  const match = /^GMT(?:([+-])(\d{2}):?(\d{2})?)?$/.exec(part ?? "");
  if (!match || !match[1]) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3] ?? 0);
  return match[1] === "-" ? -minutes : minutes;
}

/** RFC 3339 with the server's own offset: "2024-01-10T14:00:00.000+02:00" — the instant and the server's wall clock. */
export function formatServerTime(at: number, offsetMinutes: number): string {
  const local = new Date(at + offsetMinutes * 60_000).toISOString().slice(0, -1);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}
