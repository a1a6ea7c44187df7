/**
 * What an edit of a copy link means for the positions already copied
 * (app/features/trades-copier/copiedChanges.ts): one line per consequence, per follower, none
 * when nothing that matters to open copies changed.
 */
import { describe, expect, it } from "vitest";
import { copiedPositionChanges } from "../../app/features/trades-copier/copiedChanges.ts";
import { newFollower, newLink, type LinkDraft } from "../../app/features/trades-copier/draft.ts";

const P = "7d7c2d2e-52d4-4c2a-9a3e-0b2b1c7e5f10";
const nameOf = () => "Demo MT5";
const link = (): LinkDraft => ({ ...newLink(P), name: "Signals", sourceLogin: "100001", followers: [{ ...newFollower(P), login: "300001" }] });

describe("what changes for positions already copied", () => {
  it("says nothing for a rename", () => {
    expect(copiedPositionChanges(link(), { ...link(), name: "Other" }, nameOf)).toEqual([]);
  });

  it("volume, direction and close-only: new copies only, open copies keep theirs", () => {
    const before = link();
    const after = {
      ...before,
      followers: [{ ...before.followers[0]!, volumeMode: "multiplier" as const, volumeValue: "2", direction: "reverse" as const, closeOnly: true }],
    };
    const lines = copiedPositionChanges(before, after, nameOf);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^Demo MT5 300001 goes close-only/);
    expect(lines[1]).toMatch(/volume settings apply to new copies only; open copies keep their volume/);
    expect(lines[2]).toMatch(/new direction applies to new copies only/);
  });

  it("a removed follower's copies stay open; an added one gets the open positions only with copyExistingPositions", () => {
    const before = link();
    const added = { ...newFollower(P), login: "300002", copyExistingPositions: true };
    const lines = copiedPositionChanges(before, { ...before, followers: [added] }, nameOf);
    expect(lines).toEqual([
      "Demo MT5 300001 is removed: its copies already open stay open and no longer follow the source.",
      "Demo MT5 300002 is added: the source's positions open now are copied to it.",
    ]);
    expect(copiedPositionChanges(before, { ...before, followers: [...before.followers, { ...added, copyExistingPositions: false }] }, nameOf)).toEqual([
      "Demo MT5 300002 is added: only positions the source opens from now are copied to it.",
    ]);
  });

  it("a disabled link or source change is said once for the link", () => {
    const before = link();
    expect(copiedPositionChanges(before, { ...before, enabled: false, sourceLogin: "100002" }, nameOf)).toHaveLength(2);
  });
});
