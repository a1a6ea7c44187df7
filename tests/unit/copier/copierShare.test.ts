/**
 * A copy's share of what the source keeps (core/copier/volume.ts copyShare, closeToShare), the
 * partial close decided by it, and MT4's ticket chains walked back to their first ticket
 * (core/copier/chain.ts): the figures the engine's live partial closes, its catch-up and the
 * resync all use, so a partial close seen late, twice or never comes to the same copy.
 */
import { describe, expect, it } from "vitest";
import { chainRoots, closeToShare, copyShare, decide } from "../../../core/copier/index.ts";
import { context, position, settings, symbol } from "./fixtures.ts";

const eurusd = symbol("EURUSD");

describe("a copy's share of what the source keeps", () => {
  it("is what it opened with × the source's fraction, rounded up to the step, never more than it opened with", () => {
    expect(copyShare({ volume: 2000, sourceVolume: 10_000 }, 6000, eurusd)).toBe(1200);
    // 0.3 × 0.5 = 0.15 → rounded up to 0.2 lot: what is closed is rounded down.
    expect(copyShare({ volume: 3000, sourceVolume: 10_000 }, 5000, eurusd)).toBe(1500);
    expect(copyShare({ volume: 300, sourceVolume: 10_000 }, 5000, eurusd)).toBe(200);
    expect(copyShare({ volume: 2000, sourceVolume: 10_000 }, 12_000, eurusd)).toBe(2000);
    expect(copyShare({ volume: 2000, sourceVolume: 10_000 }, 0, eurusd)).toBe(0);
  });

  it("closes the part above the share, the whole copy when the share is below the minimum, nothing when the copy holds no more", () => {
    expect(closeToShare(2000, 1200, eurusd)).toEqual({ volume: 800, whole: false });
    expect(closeToShare(2000, 0, eurusd)).toEqual({ volume: 2000, whole: true });
    expect(closeToShare(2000, 50, symbol("EURUSD", { volumeStep: 10, volumeMin: 100 }))).toEqual({ volume: 2000, whole: true });
    expect(closeToShare(1200, 1200, eurusd)).toBeNull();
    expect(closeToShare(1000, 1200, eurusd)).toBeNull();
  });

  it("decides a partial close to the share: the same copy whether two partial closes come one by one, only the last, or the older one late", () => {
    const opened = { volume: 3000, sourceVolume: 10_000 };
    const copied = { positionId: "9", symbol: "EURUSD", side: "buy" as const, openPrice: 1.1, opened };
    const partial = (kept: number, closed: number, copyVolume: number) =>
      decide(
        { type: "partialClose", time: 1, position: position({ volume: kept }), closedVolume: closed },
        settings(),
        context({ copied: { ...copied, volume: copyVolume } }),
      );
    // One by one: 10 → 7 → 4 lots on the source.
    expect(partial(7000, 3000, 3000)).toMatchObject({ kind: "copy", action: { type: "close", volume: 900, whole: false } });
    expect(partial(4000, 3000, 2100)).toMatchObject({ kind: "copy", action: { type: "close", volume: 900, whole: false } });
    // Only the last seen (the first was missed): the same 1.2 lots remain.
    expect(partial(4000, 6000, 3000)).toMatchObject({ kind: "copy", action: { type: "close", volume: 1800, whole: false } });
    // The older one seen after the later: nothing more to close.
    expect(partial(7000, 3000, 1200)).toEqual({ kind: "skip", reason: "volumeZero" });
  });
});

describe("MT4 ticket chains", () => {
  it("walks a ticket partly closed several times back to its first ticket through the exits' 'to #' comments", () => {
    const exits = [
      { positionId: "12", comment: "to #13" },
      { positionId: "13", comment: "to #14" },
      { positionId: "20", comment: "" },
    ];
    const roots = chainRoots(
      [
        { id: "14", previousId: "13" },
        { id: "30", previousId: null },
      ],
      exits,
    );
    expect(roots).toEqual(
      new Map([
        ["14", "12"],
        ["30", "30"],
      ]),
    );
  });

  it("stops at the earliest ticket the history knows, and never loops", () => {
    expect(chainRoots([{ id: "14", previousId: "13" }], [])).toEqual(new Map([["14", "13"]]));
    expect(chainRoots([{ id: "14", previousId: "13" }], [{ positionId: "14", comment: "to #13" }])).toEqual(new Map([["14", "13"]]));
  });
});
