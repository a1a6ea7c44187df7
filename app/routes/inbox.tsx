import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Inbox · Toolbox" }];

export default function InboxPage() {
  return <Page title="Inbox" description="This area arrives in a later release." />;
}
