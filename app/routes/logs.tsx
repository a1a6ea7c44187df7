import { ScrollText } from "lucide-react";
import { ComingLater } from "~/features/placeholder/ComingLater";
import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Logs · Toolbox" }];

export default function LogsPage() {
  return (
    <Page title="Logs" description="The audit log and each platform's server journal">
      <ComingLater
        icon={ScrollText}
        what="Who did what in Toolbox, with before and after, and every server journal entry; filter by time, platform, actor, action and text, and export to CSV."
      />
    </Page>
  );
}
