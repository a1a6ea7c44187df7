import { describe, expect, it } from "vitest";
import { presetRange } from "../../core/datePresets.ts";

describe("date presets, as days of the member's time zone", () => {
  // 27 Nov 2026 01:30 in Athens (UTC+2) is still 26 Nov in UTC.
  const now = Date.parse("2026-11-26T23:30:00Z");

  it("today starts at midnight in the member's zone and runs until now", () => {
    expect(presetRange("today", now, "Europe/Athens")).toEqual({ from: "2026-11-26T22:00:00.000Z", to: "" });
    expect(presetRange("today", now, "UTC")).toEqual({ from: "2026-11-26T00:00:00.000Z", to: "" });
  });

  it("yesterday is the whole previous day", () => {
    expect(presetRange("yesterday", now, "Europe/Athens")).toEqual({ from: "2026-11-25T22:00:00.000Z", to: "2026-11-26T21:59:59.999Z" });
  });

  it("the last 7 days are today and the six days before, across a change of offset", () => {
    expect(presetRange("last7", now, "Europe/Athens")).toEqual({ from: "2026-11-20T22:00:00.000Z", to: "" });
    // New York left summer time on 1 Nov 2026: 7 days back from 3 Nov starts at EDT midnight.
    expect(presetRange("last7", Date.parse("2026-11-03T12:00:00Z"), "America/New_York")).toEqual({ from: "2026-10-28T04:00:00.000Z", to: "" });
  });
});
