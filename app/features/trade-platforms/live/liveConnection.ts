import { apiHeaders } from "~/api/headers";
import { onOrganizationChange, useProfileStore } from "~/profile";
import { openLiveStream } from "./liveStream";
import { readRemovedPlatform, readStateUpdates, useLiveStateStore } from "./liveStateStore";

export const LIVE_STATE_URL = "/api/tradePlatforms/live";
/** Moving between pages unmounts one user of the stream before the next mounts: don't hang up in between. */
const RELEASE_DELAY_MS = 3000;

let users = 0;
let stopStream: (() => void) | null = null;
let stopWatchingOrganization: (() => void) | null = null;
let releaseTimer: ReturnType<typeof setTimeout> | undefined;

function start() {
  const store = useLiveStateStore.getState();
  stopStream = openLiveStream({
    url: LIVE_STATE_URL,
    headers: () => apiHeaders(),
    onStatus: (status) => store.setStream(status),
    onMessage: (message) => {
      if (message.event === "removed") {
        // Deleted (perhaps by someone else): it leaves the sidebar and the overview at once.
        const id = readRemovedPlatform(message.data);
        if (id) {
          store.remove(id);
          useProfileStore.getState().removeTradePlatform(id);
        }
        return;
      }
      if (message.event !== "state") return;
      const receivedAt = Date.now();
      for (const update of readStateUpdates(message.data)) store.apply(update, receivedAt);
    },
  });
}

function stop() {
  stopStream?.();
  stopStream = null;
}

/**
 * One stream per browser tab, shared by every component that shows live platform state (the
 * sidebar, the overview, a platform's settings): the first user opens it, the last one closes it.
 * It is the current organization's stream: switching organization starts a new one.
 */
export function acquireLiveState(): () => void {
  clearTimeout(releaseTimer);
  users++;
  if (!stopStream) {
    start();
    stopWatchingOrganization = onOrganizationChange(() => {
      stop();
      useLiveStateStore.getState().clear();
      start();
    });
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    users--;
    if (users > 0) return;
    releaseTimer = setTimeout(() => {
      if (users > 0) return;
      stop();
      stopWatchingOrganization?.();
      stopWatchingOrganization = null;
    }, RELEASE_DELAY_MS);
  };
}
