/**
 * Whose time zone a screen uses (docs/decisions/0078-organization-time-zone.md): the member's own,
 * else the organization's default, else the browser's; and the blotter's From/To days are days in
 * that zone, not the browser's. The expected instants are written out by hand from the zones'
 * fixed offsets (Tokyo +09:00 all year; Athens +03:00 in summer, +02:00 from 25 October 2026 04:00).
 */
import { afterEach, describe, expect, it } from "vitest";
import { dayRange, EMPTY_FILTERS, historyQuery, yesterday } from "~/features/trades-blotter/blotterFilters";
import { currentFormat, useDisplayStore } from "~/ui/format";

const display = () => useDisplayStore.getState();

afterEach(() => {
  display().setOrganizationTimeZone(null);
  display().setPreference({});
});

describe("the zone times are shown in", () => {
  it("is the organization's default for a member without their own, and the member's own when set", () => {
    const browser = currentFormat().timeZone;
    display().setOrganizationTimeZone("Asia/Tokyo");
    expect(currentFormat().timeZone).toBe("Asia/Tokyo");
    expect(currentFormat().time("2026-11-27T00:00:00Z")).toMatch(/^0?9[:.]00[:.]00/);

    display().setPreference({ timeZone: "Europe/Athens" });
    expect(currentFormat().timeZone).toBe("Europe/Athens");
    // Clearing their own returns to the organization's, not the browser's.
    display().setPreference({ timeZone: null });
    expect(currentFormat().timeZone).toBe("Asia/Tokyo");
    display().setOrganizationTimeZone(null);
    expect(currentFormat().timeZone).toBe(browser);
  });
});

describe("the blotter's From/To days", () => {
  it("are whole days in the organization's zone for a member without their own", () => {
    display().setOrganizationTimeZone("Asia/Tokyo");
    expect(dayRange("2026-11-27", "2026-11-27")).toEqual({ from: "2026-11-26T15:00:00.000Z", to: "2026-11-27T15:00:00.000Z" });
    const query = historyQuery({ filters: EMPTY_FILTERS, from: "2026-11-01", to: "2026-11-30" });
    expect(query.get("from")).toBe("2026-10-31T15:00:00.000Z");
    expect(query.get("to")).toBe("2026-11-30T15:00:00.000Z");
  });

  it("are whole days in the member's own zone when set, a day of 25 hours included", () => {
    display().setOrganizationTimeZone("Asia/Tokyo");
    display().setPreference({ timeZone: "Europe/Athens" });
    // Athens leaves summer time on 25 October 2026: that day is 25 hours long.
    expect(dayRange("2026-10-25", "2026-10-25")).toEqual({ from: "2026-10-24T21:00:00.000Z", to: "2026-10-25T22:00:00.000Z" });
    expect(dayRange("2026-07-01", "2026-07-02")).toEqual({ from: "2026-06-30T21:00:00.000Z", to: "2026-07-02T21:00:00.000Z" });
  });

  it("default to yesterday as the member's zone counts days", () => {
    const now = new Date("2026-11-27T20:00:00Z"); // already the 28th in Tokyo, still the 27th in New York
    display().setOrganizationTimeZone("Asia/Tokyo");
    expect(yesterday(now)).toBe("2026-11-27");
    display().setOrganizationTimeZone("America/New_York");
    expect(yesterday(now)).toBe("2026-11-26");
    expect(yesterday(new Date("2026-03-01T12:00:00Z"))).toBe("2026-02-28");
  });
});
