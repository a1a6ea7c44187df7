import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Notifications · Toolbox" }];

export default function NotificationsPage() {
  return <Page title="Notifications" description="This area arrives in a later release." />;
}
