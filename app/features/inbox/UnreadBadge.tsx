import { useEffect } from "react";
import { acquireUnreadCount, useUnreadStore } from "./unreadCount";

/** The sidebar's unread count next to "Inbox", live; nothing when there is none. */
export function UnreadBadge() {
  useEffect(() => acquireUnreadCount(), []);
  const unread = useUnreadStore((s) => s.unread);
  if (!unread) return null;
  const text = unread > 99 ? "99+" : String(unread);
  return (
    <span
      data-testid="inbox-unread"
      className="ml-auto inline-flex h-5 min-w-5 items-center justify-center rounded-full bg-danger px-1.5 text-[11px] font-semibold text-danger-foreground tabular-nums"
    >
      <span aria-hidden>{text}</span>
      <span className="sr-only">{`, ${unread} unread`}</span>
    </span>
  );
}
