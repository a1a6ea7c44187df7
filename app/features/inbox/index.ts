/** What other features use of the inbox: the sidebar's live unread badge. The page stays behind its route. */
export { UnreadBadge } from "./UnreadBadge";
