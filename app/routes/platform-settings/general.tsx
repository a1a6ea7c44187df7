import { Settings2 } from "lucide-react";
import { ComingLater } from "~/features/placeholder/ComingLater";
import { Section } from "~/ui/Section";

export const meta = () => [{ title: "General · Toolbox" }];

export default function PlatformGeneralPage() {
  return (
    <Section title="General">
      <ComingLater icon={Settings2} what="Name, connection, enable switch, live connection state and server time, and the danger zone to delete the platform." />
    </Section>
  );
}
