/** Platform states become notices only on real transitions; a flapping link does not flood. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FlapFilter, type Transition } from "../../../server/modules/notifications/flapFilter.ts";

describe("FlapFilter", () => {
  let seen: [string, Transition["kind"]][];
  let filter: FlapFilter;
  beforeEach(() => {
    vi.useFakeTimers();
    seen = [];
    filter = new FlapFilter(10_000, (id, t) => seen.push([id, t.kind]));
  });
  afterEach(() => {
    filter.stop();
    vi.useRealTimers();
  });

  it("says disconnected at once and reconnected once the link has settled", () => {
    filter.observe("p", "connecting", null, 1);
    filter.observe("p", "connected", null, 2);
    filter.observe("p", "connected", null, 3); // a clock reading
    expect(seen).toEqual([]);
    filter.observe("p", "reconnecting", "The connection was lost", 4);
    expect(seen).toEqual([["p", "disconnected"]]);
    filter.observe("p", "failed", "unreachable", 5);
    filter.observe("p", "connected", null, 6);
    expect(seen).toHaveLength(1);
    vi.advanceTimersByTime(10_000);
    expect(seen).toEqual([
      ["p", "disconnected"],
      ["p", "reconnected"],
    ]);
  });

  it("a link that flaps before it settles is one outage: one disconnected, one reconnected", () => {
    filter.observe("p", "connected", null, 1);
    for (let i = 0; i < 20; i++) {
      filter.observe("p", "reconnecting", "lost", 2 + i * 2);
      vi.advanceTimersByTime(1_000);
      filter.observe("p", "connected", null, 3 + i * 2);
      vi.advanceTimersByTime(1_000);
    }
    expect(seen).toEqual([["p", "disconnected"]]);
    vi.advanceTimersByTime(10_000);
    expect(seen).toEqual([
      ["p", "disconnected"],
      ["p", "reconnected"],
    ]);
  });

  it("says nothing for a platform first seen down, nor for one stopped on purpose", () => {
    filter.observe("a", "failed", "unreachable", 1);
    filter.observe("a", "connected", null, 2);
    vi.advanceTimersByTime(20_000);
    filter.observe("b", "connected", null, 3);
    filter.observe("b", "disconnected", null, 4); // disabled
    filter.observe("c", "connected", null, 5);
    filter.observe("c", "reconnecting", "lost", 6);
    filter.forget("c"); // deleted while down
    filter.observe("c", "connected", null, 7);
    vi.advanceTimersByTime(20_000);
    expect(seen).toEqual([["c", "disconnected"]]);
  });
});
