/**
 * Runs the refreshes of one platform one after another (each reads the row anew, so the last one
 * applies the latest state), those of different platforms side by side.
 */
export class RefreshQueue {
  private readonly tails = new Map<string, Promise<void>>();

  /** `task` after the platform's queued ones; it must not reject. */
  run(platformId: string, task: () => Promise<void>): Promise<void> {
    const next = (this.tails.get(platformId) ?? Promise.resolve()).then(task);
    this.tails.set(platformId, next);
    void next.finally(() => {
      if (this.tails.get(platformId) === next) this.tails.delete(platformId);
    });
    return next;
  }
}
