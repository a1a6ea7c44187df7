/**
 * The node's budget for its blotter streams (server/modules/tradesBlotter/nodeBudget.ts), an
 * object that owns its counters, against frames and streams that only record what it did to them:
 * past the rows budget the largest frame gathered anywhere is written, until under it; past the
 * bytes budget (buffers counted once however many streams hold them) the streams holding the most
 * resynchronize first, and past twice it in stopped streams alone the largest of those end.
 */
import { describe, expect, it } from "vitest";
import { NodeBudget, type BudgetedStream, type PendingFrame } from "../../../server/modules/tradesBlotter/nodeBudget.ts";

class Frame implements PendingFrame {
  flushes = 0;
  constructor(
    private readonly budget: () => NodeBudget,
    public size: number,
  ) {}
  flush() {
    this.flushes++;
    this.budget().gathered(-this.size);
    this.size = 0;
  }
}

class Stream implements BudgetedStream {
  dropping = false;
  ended = false;
  constructor(public buffers: Buffer[]) {}
  unsent() {
    return this.buffers.reduce((n, b) => n + b.length, 0);
  }
  held() {
    return this.buffers;
  }
  slow() {
    this.dropping = true;
  }
  end() {
    this.ended = true;
    this.buffers = [];
  }
}

describe("the node's blotter budget", () => {
  it("counts the rows gathered and, past its bound, writes the largest frames first until it is under", () => {
    const frames: Frame[] = [];
    const budget = new NodeBudget({ rows: 100, bytes: 1_000 }, { frames: () => frames, streams: () => [] });
    frames.push(new Frame(() => budget, 30), new Frame(() => budget, 50), new Frame(() => budget, 25));
    budget.gathered(105);
    expect(budget.gatheredRows).toBe(105);
    expect(budget.overRows).toBe(true);
    budget.flushLargest();
    expect(frames.map((f) => f.flushes)).toEqual([0, 1, 0]);
    expect(budget.gatheredRows).toBe(55);
    expect(budget.overRows).toBe(false);
    // Over it with nothing gathered in any frame (rows counted elsewhere): it stops rather than loop.
    const written = frames.splice(0);
    budget.gathered(100);
    budget.flushLargest();
    expect(budget.overRows).toBe(true);
    expect(written.map((f) => f.flushes)).toEqual([0, 1, 0]);
  });

  it("counts a buffer many streams hold once, resynchronizes the streams holding the most past its bytes, and ends stopped ones past twice it", () => {
    const shared = Buffer.alloc(600);
    const a = new Stream([shared, Buffer.alloc(500)]);
    const b = new Stream([shared]);
    const c = new Stream([Buffer.alloc(100)]);
    const streams = [a, b, c];
    const budget = new NodeBudget({ rows: 100, bytes: 1_000 }, { frames: () => [], streams: () => streams });
    expect(budget.heldBytes()).toBe(1_200);

    budget.enforceBytes();
    // a held the most: stopping it frees its own 500 bytes (b still holds the shared frame): 700 left.
    expect(streams.map((s) => s.dropping)).toEqual([true, false, false]);
    expect(budget.budgetResyncs).toBe(1);
    expect(budget.heldBytes()).toBe(1_200);

    // What stopped streams alone hold (a's own 500, d's 2,000) grows past twice the budget: the largest of them ends.
    const d = new Stream([Buffer.alloc(2_000)]);
    d.dropping = true;
    streams.push(d);
    budget.enforceBytes();
    expect(streams.map((s) => s.ended)).toEqual([false, false, false, true]);
    expect(budget.budgetEnds).toBe(1);
    expect(budget.budgetResyncs).toBe(1);
  });
});
