import { InboxPage } from "~/features/inbox/InboxPage";

export const meta = () => [{ title: "Inbox · Toolbox" }];

export default function InboxRoute() {
  return <InboxPage />;
}
