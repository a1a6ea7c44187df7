/**
 * The editors' staging (app/features/server-config): a staged change holds only the fields that
 * differ from the object as read, keeps the version it was read at, and Apply sends exactly that
 * diff; the form's units (lots, money, levels) turn back into the model's values.
 */
import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { fromText, GROUP_FIELDS, SYMBOL_FIELDS, toText } from "../../app/features/server-config/fields.ts";
import { diffLines, stagedKey, toSent, useStaging } from "../../app/features/server-config/store.ts";

const group = { name: "demo\\usd", currency: "USD", defaultLeverage: 100, marginLevelMode: "percent", marginCall: 100, stopOut: 50, maxPositions: 0 };
const field = (list: typeof GROUP_FIELDS, key: string) => list.find((f) => f.key === key)!;

describe("server configuration staging", () => {
  beforeEach(() => useStaging.setState({ staged: {}, refusals: {} }));

  it("stages only what differs from the object as read, sends exactly that diff with the version read", () => {
    const { stageFields } = useStaging.getState();
    stageFields("p", "group", group.name, group, "c1-0000000000000001", { marginCall: 120, stopOut: 50, defaultLeverage: 100 });
    stageFields("p", "group", group.name, group, "c1-0000000000000001", { maxPositions: 10 });
    const staged = useStaging.getState().staged.p?.[stagedKey("group", group.name)];
    expect(staged && toSent(staged)).toEqual({
      kind: "group",
      name: group.name,
      expected: "c1-0000000000000001",
      patch: { marginCall: 120, maxPositions: 10 },
    });
    expect(staged && diffLines(staged)).toEqual([
      { field: "marginCall", before: 100, after: 120 },
      { field: "maxPositions", before: 0, after: 10 },
    ]);
    // Back to the read values: nothing left to stage.
    stageFields("p", "group", group.name, group, "c1-0000000000000001", { marginCall: 100, maxPositions: 0 });
    expect(useStaging.getState().staged.p).toEqual({});
  });

  it("staged on a newer version (after a refusal), the change starts over from that version", () => {
    const { stageFields } = useStaging.getState();
    stageFields("p", "group", group.name, group, "c1-0000000000000001", { marginCall: 120 });
    stageFields("p", "group", group.name, { ...group, stopOut: 60 }, "c1-0000000000000002", { maxPositions: 5 });
    const staged = useStaging.getState().staged.p?.[stagedKey("group", group.name)];
    expect(staged && toSent(staged)).toEqual({ kind: "group", name: group.name, expected: "c1-0000000000000002", patch: { maxPositions: 5 } });
  });

  it("reads the form's units back into the model's: lots, cents, money-mode levels", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), (volume) => {
        const lots = field(SYMBOL_FIELDS, "volumeMin");
        expect(fromText(lots, toText(lots, volume))).toBe(volume);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000_000 }), (cents) => {
        const money = field(GROUP_FIELDS, "commissionPerLot");
        expect(fromText(money, toText(money, cents))).toBe(cents);
        const level = field(GROUP_FIELDS, "marginCall");
        expect(fromText(level, toText(level, cents, { marginLevelMode: "money" }), { marginLevelMode: "money" })).toBe(cents);
      }),
    );
    expect(fromText(field(SYMBOL_FIELDS, "sessions"), "1 0-600, 2 60-1440")).toEqual([
      { day: 1, from: 0, to: 600 },
      { day: 2, from: 60, to: 1440 },
    ]);
    expect(fromText(field(SYMBOL_FIELDS, "volumeMin"), "a lot")).toBeUndefined();
  });
});
