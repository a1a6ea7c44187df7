import { Puzzle } from "lucide-react";
import { ComingLater } from "~/features/placeholder/ComingLater";
import { Section } from "~/ui/Section";

export const meta = () => [{ title: "Plugins · Toolbox" }];

export default function PlatformPluginsPage() {
  return (
    <Section title="Plugins">
      <ComingLater
        icon={Puzzle}
        what="The plugins found on the server with their version, enabled flag and state, each opening its own editor (Flexible Leverage first)."
      />
    </Section>
  );
}
