/**
 * Long work in slices: `due()` is true once the current slice has run `budgetMs`; `next()` then
 * gives the event loop a turn (other requests, timers) and starts a new slice. Slicing by time, not
 * by a number of rows, holds on a loaded machine and before the JIT has warmed up, when the same
 * rows take ten times longer.
 */
import { setImmediate as yieldToEventLoop } from "node:timers/promises";

export const SLICE_BUDGET_MS = 8;

export class Slices {
  private started = performance.now();

  constructor(private readonly budgetMs = SLICE_BUDGET_MS) {}

  due(): boolean {
    return performance.now() - this.started >= this.budgetMs;
  }

  async next(): Promise<void> {
    await yieldToEventLoop();
    this.started = performance.now();
  }
}
