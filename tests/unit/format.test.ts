/**
 * One way to show dates, times, money and volumes (core/format.ts): the member's locale and zone
 * decide, on every screen (app/ui/format) and in exports. Expected texts are written out by hand.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createFormatter, csvServerTime, csvTime, parseDate } from "@core/format";
import { useDisplayStore } from "~/ui/format";
import { formatDateTime, formatMoney } from "~/ui/grid";

const AT = Date.UTC(2025, 10, 21, 10, 30, 5); // 21 Nov 2025 10:30:05 UTC, 12:30:05 in Athens

describe("createFormatter", () => {
  it("writes dates and times in the chosen locale and zone", () => {
    const de = createFormatter({ locale: "de-DE", timeZone: "Europe/Athens" });
    expect(de.dateTime(AT)).toBe("21.11.2025, 12:30:05");
    expect(de.date(AT)).toBe("21.11.2025");
    expect(de.time(AT)).toBe("12:30:05");
    const gb = createFormatter({ locale: "en-GB", timeZone: "UTC" });
    expect(gb.dateTime(new Date(AT).toISOString())).toBe("21/11/2025, 10:30:05");
    expect(gb.dateTimeShort(AT)).toBe("21/11/2025, 10:30");
    expect(gb.dateTimeIn(AT, "America/New_York")).toBe("21/11/2025, 05:30:05 GMT-5");
    expect(gb.dateTime(null)).toBe("—");
  });

  it("groups money exactly, with the locale's separators, never through a float", () => {
    expect(createFormatter({ locale: "en-US", timeZone: "UTC" }).money("1234567.5")).toBe("1,234,567.50");
    expect(createFormatter({ locale: "de-DE", timeZone: "UTC" }).money("-98765432109876.125")).toBe("-98.765.432.109.876,12");
    expect(createFormatter({ locale: "de-DE", timeZone: "UTC" }).volume(1250)).toBe("1.250,00");
    expect(createFormatter({ locale: "en-GB", timeZone: "UTC" }).money("-0.00")).toBe("0.00");
  });

  it("types dates in the order the member reads them", () => {
    const us = createFormatter({ locale: "en-US", timeZone: "UTC" });
    expect(us.datePattern.placeholder).toBe("mm/dd/yyyy");
    expect(parseDate("11/27/2026", us.datePattern)).toBe("2026-11-27");
    const de = createFormatter({ locale: "de-DE", timeZone: "UTC" });
    expect(de.datePattern.placeholder).toBe("dd.mm.yyyy");
    expect(parseDate("27.11.2026", de.datePattern)).toBe("2026-11-27");
    expect(parseDate("31.02.2026", de.datePattern)).toBeNull();
    expect(de.isoDate("2026-11-27")).toBe("27.11.2026");
  });

  it("writes exports in one machine-readable form, whatever the locale", () => {
    expect(csvTime(AT, "UTC")).toBe("2025-11-21 10:30:05");
    expect(csvTime(AT, "Europe/Athens", true)).toBe("2025-11-21 12:30:05 +02:00");
    expect(csvTime(AT, "UTC", true)).toBe("2025-11-21 10:30:05 +00:00");
    expect(csvServerTime("2025-11-21 05:30:05.000", new Date(AT).toISOString())).toBe("2025-11-21 05:30:05 -05:00");
  });
});

describe("the member's display preference", () => {
  afterEach(() => useDisplayStore.getState().setPreference({}));

  it("is what the grids format with", () => {
    useDisplayStore.getState().setPreference({ locale: "de-DE", timeZone: "Europe/Athens" });
    expect(formatDateTime(AT)).toBe("21.11.2025, 12:30:05");
    expect(formatMoney("1250.5")).toBe("1.250,50");
    useDisplayStore.getState().setPreference({ locale: "en-US", timeZone: "America/New_York" });
    expect(formatDateTime(AT)).toBe("11/21/2025, 05:30:05 AM");
    expect(formatMoney("1250.5")).toBe("1,250.50");
  });

  it("falls back to the browser's own for a locale or zone it does not know", () => {
    useDisplayStore.getState().setPreference({ locale: "xx-invalid-!!", timeZone: "Mars/Olympus" });
    const { locale, timeZone } = useDisplayStore.getState().formatter;
    expect(locale).toBeTruthy();
    expect(timeZone).toBe(new Intl.DateTimeFormat().resolvedOptions().timeZone);
  });
});
