// @vitest-environment node
/**
 * The time-zone picker finds a renamed zone by its current name and by its old one, whatever the
 * browser lists: Debian's Chromium (and Node) list `Asia/Calcutta`, `Europe/Kiev`, `Asia/Saigon`,
 * newer ICU data may list the new names, or both. What is chosen, and stored, is the current IANA
 * name, which the server accepts as typed (core/schemas/timeZone.ts).
 */
import { describe, expect, it } from "vitest";
import { normalizeTimeZone } from "@core/schemas/timeZone";
import { RENAMED_ZONES, filterTimeZones, timeZoneOptions } from "~/features/trade-platforms/form/timeZones";

const AT = new Date("2026-11-27T12:00:00Z");
const zonesFound = (listed: readonly string[] | undefined, query: string) => filterTimeZones(timeZoneOptions(AT, listed), query).map((o) => o.zone);

describe("the time-zone picker and renamed zones", () => {
  const OLD_NAMES = ["UTC", "Asia/Calcutta", "Asia/Saigon", "Europe/Kiev", "Europe/London"];
  const NEW_NAMES = ["UTC", "Asia/Kolkata", "Asia/Ho_Chi_Minh", "Europe/Kyiv", "Europe/London"];

  it.each([
    ["old names (Debian's Chromium)", OLD_NAMES],
    ["new names", NEW_NAMES],
    ["both", [...OLD_NAMES, ...NEW_NAMES]],
  ])("a browser listing %s offers each zone once, under its current name", (_, listed) => {
    expect(timeZoneOptions(AT, listed).map((o) => o.zone)).toEqual(["UTC", "Asia/Ho_Chi_Minh", "Asia/Kolkata", "Europe/Kyiv", "Europe/London"]);
    const kolkata = timeZoneOptions(AT, listed).find((o) => o.zone === "Asia/Kolkata")!;
    expect(kolkata).toMatchObject({ region: "Asia", city: "Kolkata", offset: "UTC+05:30" });
  });

  it.each([
    ["kolkata", "Asia/Kolkata"],
    ["Calcutta", "Asia/Kolkata"],
    ["kyiv", "Europe/Kyiv"],
    ["kiev", "Europe/Kyiv"],
    ["ho chi minh", "Asia/Ho_Chi_Minh"],
    ["saigon", "Asia/Ho_Chi_Minh"],
  ])("searching %s finds %s, whichever names the browser lists", (query, zone) => {
    expect(zonesFound(OLD_NAMES, query)).toEqual([zone]);
    expect(zonesFound(NEW_NAMES, query)).toEqual([zone]);
  });

  it("finds Kolkata in this runtime's own list (Node lists Asia/Calcutta too)", () => {
    expect(zonesFound(undefined, "kolkata")).toEqual(["Asia/Kolkata"]);
    expect(zonesFound(undefined, "calcutta")).toEqual(["Asia/Kolkata"]);
    expect(zonesFound(undefined, "Asia/Calcutta")).toEqual(["Asia/Kolkata"]);
  });

  it("stores names the server keeps as they are, for the same zone as the old name", () => {
    for (const [old, current] of Object.entries(RENAMED_ZONES)) {
      expect(normalizeTimeZone(current), current).toBe(current);
      const offsets = [old, current].map((zone) => new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" }).format(AT));
      expect(offsets[1], `${old} → ${current}`).toBe(offsets[0]);
    }
  });
});
