/** Waiting a moment for a platform that is (re)connecting, for a request that needs it now. */
import type { TradePlatformConnector } from "../../../connectors/connector.ts";
import type { ConnectionManager } from "../../../connectors/manager.ts";

/** The platform's connector once connected, within `waitMs`; null if it fails, stops or takes longer. */
export function whenConnected(manager: ConnectionManager, platformId: string, waitMs: number): Promise<TradePlatformConnector | null> {
  const current = () => {
    const connector = manager.get(platformId);
    return connector && manager.status(platformId)?.state === "connected" ? connector : null;
  };
  const now = current();
  if (now || waitMs <= 0) return Promise.resolve(now);
  const state = manager.status(platformId)?.state;
  if (state !== "connecting" && state !== "reconnecting") return Promise.resolve(null);
  return new Promise((resolve) => {
    const done = (value: TradePlatformConnector | null) => {
      clearTimeout(timer);
      unlisten();
      resolve(value);
    };
    const timer = setTimeout(() => done(current()), waitMs);
    const unlisten = manager.onStatus((status) => {
      if (status.platformId !== platformId) return;
      if (status.state === "connected") done(current());
      else if (status.state === "failed" || status.state === "disconnected") done(null);
    });
  });
}
