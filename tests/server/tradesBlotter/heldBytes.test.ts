import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Holdings, WrittenQueue } from "../../../server/modules/tradesBlotter/heldBytes.ts";

const sum = (buffers: Iterable<Buffer>) => [...buffers].reduce((t, b) => t + b.length, 0);

describe("what the blotter's streams hold, each buffer once", () => {
  it("lets a stream's buffers go as its socket takes them, and holds one partly taken", () => {
    const q = new WrittenQueue();
    const [a, b, c] = [Buffer.alloc(100), Buffer.alloc(200), Buffer.alloc(300)];
    q.push(a);
    q.push(b);
    q.push(c);
    q.settle(600);
    expect([...q.buffers()]).toEqual([a, b, c]);
    // 150 taken: a is gone, b is half sent and still held.
    q.settle(450);
    expect([...q.buffers()]).toEqual([b, c]);
    // The socket's count has bytes the queue never saw (chunk framing): it errs on holding.
    q.settle(310);
    expect([...q.buffers()]).toEqual([b, c]);
    q.settle(300);
    expect([...q.buffers()]).toEqual([c]);
    q.settle(0);
    expect([...q.buffers()]).toEqual([]);
  });

  it("counts a buffer once however many streams hold it, and frees it with its last holder", () => {
    const frame = Buffer.alloc(1_000);
    const own = Buffer.alloc(10);
    const h = new Holdings();
    h.add([frame]);
    h.add([frame, own]);
    h.add([frame]);
    expect(h.bytes).toBe(1_010);
    expect(h.remove([frame, own])).toBe(10);
    expect(h.remove([frame])).toBe(0);
    expect(h.bytes).toBe(1_000);
    const elsewhere = new Holdings();
    elsewhere.add([frame]);
    expect(h.bytesNotIn(elsewhere)).toBe(0);
    // Its last holder here leaves, but another set still holds it: nothing freed.
    expect(h.remove([frame], elsewhere)).toBe(0);
    expect(h.bytes).toBe(0);
  });

  it("never holds more than what was written, nor lets go of what the socket still has (any writes, any socket counts)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ size: fc.integer({ min: 1, max: 5_000 }), extra: fc.integer({ min: 0, max: 64 }), taken: fc.double({ min: 0, max: 1, noNaN: true }) }),
          {
            maxLength: 60,
          },
        ),
        (steps) => {
          const q = new WrittenQueue();
          let written = 0;
          let framing = 0;
          let sent = 0;
          for (const step of steps) {
            q.push(Buffer.alloc(step.size));
            written += step.size;
            framing += step.extra;
            // The socket holds what was not sent yet, plus framing bytes the queue did not see.
            sent += Math.floor((written - sent) * step.taken);
            const unsent = written - sent + (written === sent ? 0 : framing);
            q.settle(unsent);
            const held = sum(q.buffers());
            expect(held).toBeLessThanOrEqual(written);
            expect(held).toBeGreaterThanOrEqual(written - sent);
          }
        },
      ),
    );
  });
});
