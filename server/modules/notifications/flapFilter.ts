/**
 * Turns a platform's connection states (every change, and clock readings, from the bus) into the
 * transitions worth telling people about: "disconnected" at once when a connected platform loses
 * its link, and "reconnected" only once it has stayed connected for `settleMs`. A link that
 * flaps (down, up, down …) within that time says nothing more until it settles: one
 * disconnected and one reconnected per real outage, however often it flapped.
 * A platform stopped on purpose (disabled, deleted: "disconnected" without an error) is forgotten.
 */
import type { ConnectionState } from "../../../core/trading/index.ts";

export type Transition = { kind: "disconnected"; reason: string | null; seq: number } | { kind: "reconnected"; seq: number };

interface Tracked {
  connected: boolean;
  /** A "disconnected" was sent and no "reconnected" yet. */
  down: boolean;
  settle?: ReturnType<typeof setTimeout>;
}

export class FlapFilter {
  private readonly platforms = new Map<string, Tracked>();

  constructor(
    private readonly settleMs: number,
    private readonly emit: (platformId: string, transition: Transition) => void,
  ) {}

  observe(platformId: string, state: ConnectionState, lastError: string | null, seq: number): void {
    const t = this.platforms.get(platformId);
    if (state === "connected") {
      if (!t) {
        this.platforms.set(platformId, { connected: true, down: false });
        return;
      }
      if (t.connected) return;
      t.connected = true;
      if (t.down && !t.settle) {
        t.settle = setTimeout(() => {
          const now = this.platforms.get(platformId);
          if (!now) return;
          now.settle = undefined;
          now.down = false;
          this.emit(platformId, { kind: "reconnected", seq });
        }, this.settleMs);
        t.settle.unref?.();
      }
      return;
    }
    if (state === "connecting") return;
    if (state === "disconnected" && lastError === null) {
      this.forget(platformId);
      return;
    }
    // reconnecting or failed (or disconnected with a reason)
    if (!t) {
      // Seen down first (this node started while it was down): not a transition we saw.
      this.platforms.set(platformId, { connected: false, down: false });
      return;
    }
    if (!t.connected) return;
    t.connected = false;
    if (t.settle) {
      // Flapping: it came back and went again before it settled; still the same outage.
      clearTimeout(t.settle);
      t.settle = undefined;
      return;
    }
    if (t.down) return;
    t.down = true;
    this.emit(platformId, { kind: "disconnected", reason: lastError, seq });
  }

  forget(platformId: string): void {
    const t = this.platforms.get(platformId);
    if (t?.settle) clearTimeout(t.settle);
    this.platforms.delete(platformId);
  }

  stop(): void {
    for (const id of [...this.platforms.keys()]) this.forget(id);
  }
}
