/**
 * Retry waits that can be cut short. A platform follower waits out its back-off here; `resume`
 * (the platform reconnected) ends every wait so the retry happens now, and `stop` ends them so
 * nothing sleeps on after its owner. The timers are unref'd: a pending retry never keeps the
 * process alive.
 */
export class RetryWaits {
  private readonly wakers = new Set<() => void>();

  /** Resolves after `ms`, or sooner when `wakeAll` is called. */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref?.();
      this.wakers.add(done);
    });
  }

  wakeAll(): void {
    for (const wake of [...this.wakers]) wake();
  }
}
