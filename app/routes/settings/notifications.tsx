import { NotificationSettingsPage } from "~/features/notifications/NotificationSettingsPage";

export const meta = () => [{ title: "Notifications · Toolbox" }];

export default function NotificationsRoute() {
  return <NotificationSettingsPage />;
}
