import { useEffect } from "react";
import type { ConnectionState } from "@core/trading/platform";
import type { TradePlatform } from "~/profile";
import { useLiveStateStore, type PlatformLiveState } from "./liveStateStore";

/**
 * Keeps the shared live stream open while the calling component is mounted. The stream's code
 * (fetch reader, SSE parser, reconnection) loads with the stream, after the page has rendered.
 */
export function useLiveStateStream() {
  useEffect(() => {
    let release: (() => void) | undefined;
    let unmounted = false;
    void import("./liveConnection").then(({ acquireLiveState }) => {
      if (!unmounted) release = acquireLiveState();
    });
    return () => {
      unmounted = true;
      release?.();
    };
  }, []);
}

/**
 * What to show for a platform: "disabled" when it is switched off (nothing connects it),
 * otherwise the live state, falling back to what the platform list said, then "unknown" until
 * the first word from the stream.
 */
export type PlatformDisplayState = ConnectionState | "disabled" | "unknown";

export interface PlatformLiveView {
  display: PlatformDisplayState;
  live: PlatformLiveState | undefined;
}

export function usePlatformLiveState(platform: Pick<TradePlatform, "id" | "enable"> & { state?: ConnectionState }): PlatformLiveView {
  useLiveStateStream();
  const live = useLiveStateStore((s) => s.platforms[platform.id]);
  return { display: displayState(platform, live), live };
}

export function displayState(platform: { enable: boolean; state?: ConnectionState }, live: PlatformLiveState | undefined): PlatformDisplayState {
  if (!platform.enable) return "disabled";
  return live?.state ?? platform.state ?? "unknown";
}
