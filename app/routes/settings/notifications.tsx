import { Bell } from "lucide-react";
import { ComingLater } from "~/features/placeholder/ComingLater";
import { Section } from "~/ui/Section";

export const meta = () => [{ title: "Notifications · Toolbox" }];

export default function NotificationsPage() {
  return (
    <Section title="Where events go">
      <ComingLater icon={Bell} what="The in-app inbox, e-mail, Telegram and webhooks, which events go to each, and a test message." />
    </Section>
  );
}
