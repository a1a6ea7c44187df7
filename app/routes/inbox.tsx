import { Inbox } from "lucide-react";
import { ComingLater } from "~/features/placeholder/ComingLater";
import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Inbox · Toolbox" }];

export default function InboxPage() {
  return (
    <Page title="Inbox" description="Notifications for you in this organization">
      <ComingLater
        icon={Inbox}
        what="Platform disconnections, copier errors, leverage changes, new members and settings changes, with severity, filters and a live unread count."
      />
    </Page>
  );
}
