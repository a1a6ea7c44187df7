/**
 * What other features use of the inbox: the sidebar's live unread badge, and the stream's change
 * counter (the overview's recent inbox). The page stays behind its route.
 */
export { UnreadBadge } from "./UnreadBadge";
export { useInboxChanges } from "./unreadCount";
