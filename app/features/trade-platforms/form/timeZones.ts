import { utcOffsetLabel } from "../ServerClock";

export interface TimeZoneOption {
  zone: string;
  /** "Europe", "America" … or "UTC" for the zone itself. */
  region: string;
  /** "Nicosia", "Argentina / Buenos Aires". */
  city: string;
  offset: string;
}

/** Every IANA zone the browser knows, grouped by region, UTC first (what most servers run on). */
export function timeZoneOptions(at = new Date()): TimeZoneOption[] {
  const zones = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  const unique = ["UTC", ...zones.filter((z) => z !== "UTC")];
  return unique.map((zone) => {
    const [region, ...rest] = zone.split("/");
    return {
      zone,
      region: rest.length && region ? region : "UTC",
      city: rest.length ? rest.join(" / ").replace(/_/g, " ") : zone,
      offset: safeOffset(at, zone),
    };
  });
}

function safeOffset(at: Date, zone: string): string {
  try {
    return utcOffsetLabel(at, zone);
  } catch {
    return "";
  }
}

/** Matches "nicosia", "new york", "europe/ber", "utc+02", "+5:30". */
export function filterTimeZones(options: readonly TimeZoneOption[], query: string): TimeZoneOption[] {
  const q = query.trim().toLowerCase().replace(/_/g, " ");
  if (!q) return [...options];
  return options.filter((o) => {
    const haystack = `${o.zone.replace(/_/g, " ")} ${o.city} ${o.offset}`.toLowerCase();
    return q.split(/\s+/).every((word) => haystack.includes(word));
  });
}
