/**
 * Each platform's state as the node holding its feed lease says it (`platformState` on the bus),
 * for a node that does not hold it: its live pages show the holder's state, not its own (a node
 * cut off from a platform that another node reaches shows it connected). docs/events.md,
 * "Several nodes".
 *
 * One idea: the last state another node said of each platform, its server clock still running.
 */
import type { PlatformState } from "../../../events/types.ts";
import { formatServerTime } from "./timeZone.ts";

interface Heard {
  state: PlatformState;
  /** This node's clock when it was heard (the server clock in it runs on from there). */
  at: number;
}

export class HeardStates {
  private readonly heard = new Map<string, Heard>();

  hear(platformId: string, state: PlatformState): void {
    this.heard.set(platformId, { state: { ...state }, at: Date.now() });
  }

  forget(platformId: string): void {
    this.heard.delete(platformId);
  }

  /**
   * The state to show when another node says it: the one heard, unless it says what this node
   * sees too (then this node's, whose server clock is read here). Nothing heard yet (the holder
   * said it before this node started): connected, as a node keeps the lease only while connected.
   */
  shown(platformId: string, local: PlatformState): PlatformState {
    const heard = this.heard.get(platformId);
    if (heard?.state.state === local.state) return local;
    // Nothing heard since this node started: the holder renews its lease only while connected.
    if (!heard) return local.state === "connected" ? local : { state: "connected", lastError: null };
    const { serverTime, ...rest } = heard.state;
    const offset = serverTime ? offsetOf(serverTime) : null;
    if (!serverTime || offset === null) return rest;
    return { ...rest, serverTime: formatServerTime(Date.parse(serverTime) + Date.now() - heard.at, offset) };
  }
}

/** The offset in minutes of an RFC 3339 time ("…+02:00", "…Z"); null when it has none. */
function offsetOf(time: string): number | null {
  if (time.endsWith("Z")) return 0;
  const match = /([+-])(\d{2}):(\d{2})$/.exec(time);
  if (!match) return null;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === "-" ? -minutes : minutes;
}
