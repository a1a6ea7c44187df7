import { AppWindow } from "lucide-react";
import { ComingLater } from "~/features/placeholder/ComingLater";
import { Section } from "~/ui/Section";

export const meta = () => [{ title: "Applications · Toolbox" }];

export default function PlatformAppsPage() {
  return (
    <Section title="Applications">
      <ComingLater icon={AppWindow} what="The applications assigned to this platform: enable or disable each and open its settings." />
    </Section>
  );
}
