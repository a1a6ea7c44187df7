import { create } from "zustand";
import type { ConnectionState } from "@core/trading/platform";
import type { StreamStatus } from "./liveStream";

export const CONNECTION_STATES: readonly ConnectionState[] = ["disconnected", "connecting", "connected", "reconnecting", "failed"];

/** What the live stream last said about one platform. */
export interface PlatformLiveState {
  state: ConnectionState;
  lastError: string | null;
  /** The platform's clock as last reported (ISO), and when (this browser's clock) it was received. */
  serverTime: string | null;
  receivedAt: number;
}

interface LiveStateStore {
  platforms: Record<string, PlatformLiveState>;
  stream: StreamStatus;
  apply: (update: PlatformStateUpdate, receivedAt?: number) => void;
  setStream: (stream: StreamStatus) => void;
  remove: (platformId: string) => void;
  clear: () => void;
}

/** One `state` event of GET /api/tradePlatforms/live. */
export interface PlatformStateUpdate {
  platformId: string;
  state?: ConnectionState;
  lastError?: string | null;
  serverTime?: string | null;
}

// Pure: a page that imports the trade-platforms index without using the store must not pull it in (and split the shell's chunks).
export const useLiveStateStore = /* @__PURE__ */ create<LiveStateStore>()((set) => ({
  platforms: {},
  stream: "stopped",
  apply: (update, receivedAt = Date.now()) =>
    set((s) => {
      const before = s.platforms[update.platformId];
      const next: PlatformLiveState = {
        state: update.state ?? before?.state ?? "connecting",
        lastError: update.lastError !== undefined ? update.lastError : (before?.lastError ?? null),
        serverTime: update.serverTime !== undefined ? update.serverTime : (before?.serverTime ?? null),
        receivedAt,
      };
      return { platforms: { ...s.platforms, [update.platformId]: next } };
    }),
  setStream: (stream) => set({ stream }),
  remove: (platformId) =>
    set((s) => {
      const { [platformId]: _removed, ...rest } = s.platforms;
      return { platforms: rest };
    }),
  clear: () => set({ platforms: {} }),
}));

/**
 * The updates a stream message carries: one object or a list of them (a snapshot), each
 * checked, since the stream is input like any other. Unknown shapes give nothing.
 */
export function readStateUpdates(data: string): PlatformStateUpdate[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return [];
  }
  const items = Array.isArray(parsed) ? parsed : [parsed];
  return items.flatMap((item): PlatformStateUpdate[] => {
    if (!item || typeof item !== "object") return [];
    const { platformId, state, lastError, serverTime } = item as Record<string, unknown>;
    if (typeof platformId !== "string" || !platformId) return [];
    return [
      {
        platformId,
        ...(CONNECTION_STATES.includes(state as ConnectionState) ? { state: state as ConnectionState } : {}),
        ...(typeof lastError === "string" || lastError === null ? { lastError } : {}),
        ...(typeof serverTime === "string" || serverTime === null ? { serverTime } : {}),
      },
    ];
  });
}

/** The platform id of a `removed` event ({platformId}), or null. */
export function readRemovedPlatform(data: string): string | null {
  try {
    const parsed: unknown = JSON.parse(data);
    const id = parsed && typeof parsed === "object" ? (parsed as { platformId?: unknown }).platformId : undefined;
    return typeof id === "string" && id ? id : null;
  } catch {
    return null;
  }
}
