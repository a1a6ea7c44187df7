/** The Quotes Monitor's symbol-group filter (app/features/quotes-monitor/symbolGroups.ts). */
import { describe, expect, it } from "vitest";
import { groupPathOf, groupsOfPath, inGroup, learnGroups } from "../../app/features/quotes-monitor/symbolGroups.ts";

describe("symbol groups of the quotes grid", () => {
  it("offers every group and parent group the rows have shown, once", () => {
    const known = new Set<string>();
    expect(learnGroups(known, ["Forex\\Majors", "Forex\\Minors", "Crypto"])).toBe(true);
    expect(learnGroups(known, ["Forex\\Majors"])).toBe(false);
    expect([...known].sort()).toEqual(["Crypto", "Forex", "Forex\\Majors", "Forex\\Minors"]);
    expect(groupsOfPath("\\Metals\\Gold\\")).toEqual(["Metals", "Metals\\Gold"]);
  });

  it("keeps a group's symbols and those of the groups under it, not a group that only starts alike", () => {
    expect(inGroup("Forex\\Majors", "Forex")).toBe(true);
    expect(inGroup("Forex\\Majors", "Forex\\Majors")).toBe(true);
    expect(inGroup("Forex\\Minors", "Forex\\Majors")).toBe(false);
    expect(inGroup("ForexExotics", "Forex")).toBe(false);
    expect(inGroup("Crypto", "Forex")).toBe(false);
  });

  it("takes MT5's symbol name off the end of its path: the symbol is no group", () => {
    expect(groupPathOf("Forex\\Majors\\EURUSD", "EURUSD")).toBe("Forex\\Majors");
    expect(groupPathOf("Forex\\Majors", "EURUSD")).toBe("Forex\\Majors");
    expect(groupPathOf("EURUSD", "EURUSD")).toBe("");
    expect(groupsOfPath(groupPathOf("Forex\\Majors\\EURUSD", "EURUSD"))).toEqual(["Forex", "Forex\\Majors"]);
  });
});
