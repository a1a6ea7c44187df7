import { useEffect } from "react";
import { create } from "zustand";
import { apiHeaders } from "~/api/headers";
import { onOrganizationChange } from "~/profile";
import { openLiveStream } from "~/features/trade-platforms";

export const INBOX_LIVE_URL = "/api/inbox/live";
const RELEASE_DELAY_MS = 3000;

interface UnreadState {
  /** The member's unread notifications in the current organization; null until the stream said. */
  unread: number | null;
  /** Grows with every message of the stream: the inbox list reloads when it changes. */
  changes: number;
}

export const useUnreadStore = create<UnreadState>()(() => ({ unread: null, changes: 0 }));

let users = 0;
let stopStream: (() => void) | null = null;
let stopWatching: (() => void) | null = null;
let releaseTimer: ReturnType<typeof setTimeout> | undefined;

function start() {
  stopStream = openLiveStream({
    url: INBOX_LIVE_URL,
    headers: () => apiHeaders(),
    onMessage: (message) => {
      if (message.event !== "unread") return;
      try {
        const { unread } = JSON.parse(message.data) as { unread?: unknown };
        if (typeof unread === "number") useUnreadStore.setState((s) => ({ unread, changes: s.changes + 1 }));
      } catch {
        // not ours: ignored
      }
    },
  });
}

/**
 * One unread-count stream per tab, shared by the sidebar badge and the inbox page: the first user
 * opens it, the last one closes it; switching organization starts the new organization's stream.
 */
export function acquireUnreadCount(): () => void {
  clearTimeout(releaseTimer);
  users++;
  if (!stopStream) {
    start();
    stopWatching = onOrganizationChange(() => {
      stopStream?.();
      useUnreadStore.setState({ unread: null });
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
      stopStream?.();
      stopStream = null;
      stopWatching?.();
      stopWatching = null;
    }, RELEASE_DELAY_MS);
  };
}

/**
 * For another screen that shows inbox items (the overview's recent inbox): holds the tab's one
 * unread stream while mounted and answers a number that grows with every message of it (a new
 * notification, one read here or in another tab), to read the items again when it changes.
 */
export function useInboxChanges(): number {
  useEffect(() => acquireUnreadCount(), []);
  return useUnreadStore((s) => s.changes);
}
