import { useEffect, useState } from "react";
import type { PlatformLiveState } from "./live/liveStateStore";

/**
 * The platform's clock, ticking every second between the stream's reports: the last reported
 * time plus what this browser has counted since, shown in the platform's own time zone.
 */
export function useServerTime(live: PlatformLiveState | undefined): Date | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  if (!live?.serverTime) return null;
  const reported = Date.parse(live.serverTime);
  if (Number.isNaN(reported)) return null;
  return new Date(reported + Math.max(0, now - live.receivedAt));
}

export function formatServerTime(time: Date, timeZone: string | undefined): { time: string; date: string; zone: string } {
  const zone = safeTimeZone(timeZone);
  const parts = (options: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat("en-GB", { timeZone: zone, ...options }).format(time);
  return {
    time: parts({ hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false }),
    date: parts({ weekday: "short", day: "numeric", month: "short", year: "numeric" }),
    zone: `${zone} (${utcOffsetLabel(time, zone)})`,
  };
}

export function ServerClock({
  live,
  timeZone,
  emptyText = "Not reported yet",
}: {
  live: PlatformLiveState | undefined;
  timeZone?: string;
  emptyText?: string;
}) {
  const time = useServerTime(live);
  if (!time) return <span className="text-sm text-muted">{emptyText}</span>;
  const shown = formatServerTime(time, timeZone);
  return (
    // Not a live region: a screen reader would read it out every second.
    <span className="inline-flex flex-wrap items-baseline gap-x-2">
      <time dateTime={time.toISOString()} className="font-mono text-lg font-semibold tabular-nums">
        {shown.time}
      </time>
      <span className="text-sm text-muted">
        {shown.date} · {shown.zone}
      </span>
    </span>
  );
}

export function safeTimeZone(timeZone: string | undefined): string {
  if (!timeZone) return "UTC";
  try {
    new Intl.DateTimeFormat("en", { timeZone });
    return timeZone;
  } catch {
    return "UTC";
  }
}

/** "UTC+02:00" for a zone at a moment (offsets change with daylight saving). */
export function utcOffsetLabel(at: Date, timeZone: string): string {
  const name = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" }).formatToParts(at).find((p) => p.type === "timeZoneName")?.value;
  if (!name || name === "GMT") return "UTC±00:00";
  return name.replace("GMT", "UTC");
}
