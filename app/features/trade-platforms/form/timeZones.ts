import { utcOffsetLabel } from "../ServerClock";

/**
 * Zones the IANA database renamed while browsers' ICU data (Intl.supportedValuesOf) still lists them
 * under the old name: Debian's Chromium and Node offer `Asia/Calcutta`, not `Asia/Kolkata`. The
 * picker shows and stores the current name (which every runtime accepts as a zone, and the server
 * keeps as typed: core/schemas/timeZone.ts) and still finds the zone by the old one.
 */
export const RENAMED_ZONES: Readonly<Record<string, string>> = {
  "Africa/Asmera": "Africa/Asmara",
  "America/Buenos_Aires": "America/Argentina/Buenos_Aires",
  "America/Catamarca": "America/Argentina/Catamarca",
  "America/Coral_Harbour": "America/Atikokan",
  "America/Cordoba": "America/Argentina/Cordoba",
  "America/Godthab": "America/Nuuk",
  "America/Indianapolis": "America/Indiana/Indianapolis",
  "America/Jujuy": "America/Argentina/Jujuy",
  "America/Louisville": "America/Kentucky/Louisville",
  "America/Mendoza": "America/Argentina/Mendoza",
  "Asia/Calcutta": "Asia/Kolkata",
  "Asia/Katmandu": "Asia/Kathmandu",
  "Asia/Rangoon": "Asia/Yangon",
  "Asia/Saigon": "Asia/Ho_Chi_Minh",
  "Atlantic/Faeroe": "Atlantic/Faroe",
  "Europe/Kiev": "Europe/Kyiv",
  "Pacific/Enderbury": "Pacific/Kanton",
  "Pacific/Ponape": "Pacific/Pohnpei",
  "Pacific/Truk": "Pacific/Chuuk",
};

const FORMER_NAMES = new Map<string, string[]>();
for (const [old, current] of Object.entries(RENAMED_ZONES)) FORMER_NAMES.set(current, [...(FORMER_NAMES.get(current) ?? []), old]);

/** The current IANA name of a zone ("Asia/Calcutta" → "Asia/Kolkata"); other names unchanged. */
export const currentZoneName = (zone: string): string => RENAMED_ZONES[zone] ?? zone;

export interface TimeZoneOption {
  /** The current IANA name, what is stored. */
  zone: string;
  /** Older names of the zone a person may search for ("Asia/Calcutta"). */
  formerly: string[];
  /** "Europe", "America" … or "UTC" for the zone itself. */
  region: string;
  /** "Nicosia", "Argentina / Buenos Aires". */
  city: string;
  offset: string;
}

const browserZones = () => (typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : []);

/**
 * Every IANA zone the browser knows, under its current name, grouped by region, UTC first (what
 * most servers run on). `listed` is what the browser lists (old names or new, or both).
 */
export function timeZoneOptions(at = new Date(), listed: readonly string[] = browserZones()): TimeZoneOption[] {
  const current = new Set(listed.map(currentZoneName));
  current.delete("UTC");
  const unique = ["UTC", ...[...current].sort()];
  return unique.map((zone) => {
    const [region, ...rest] = zone.split("/");
    return {
      zone,
      formerly: FORMER_NAMES.get(zone) ?? [],
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

/** Matches "nicosia", "new york", "europe/ber", "utc+02", "+5:30", and former names ("calcutta", "kiev", "saigon"). */
export function filterTimeZones(options: readonly TimeZoneOption[], query: string): TimeZoneOption[] {
  const q = query.trim().toLowerCase().replace(/_/g, " ");
  if (!q) return [...options];
  return options.filter((o) => {
    const haystack = `${[o.zone, ...o.formerly].join(" ").replace(/_/g, " ")} ${o.city} ${o.offset}`.toLowerCase();
    return q.split(/\s+/).every((word) => haystack.includes(word));
  });
}
