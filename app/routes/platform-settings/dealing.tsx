import { SlidersHorizontal } from "lucide-react";
import { ComingLater } from "~/features/placeholder/ComingLater";
import { Section } from "~/ui/Section";

export const meta = () => [{ title: "Dealing · Toolbox" }];

export default function PlatformDealingPage() {
  return (
    <Section title="Dealing and execution">
      <ComingLater
        icon={SlidersHorizontal}
        what="Execution profiles and their weekly schedule, spread markups per symbol or group, maximum deviation, execution delay, maximum volume per order, stale-quote threshold and holidays."
      />
    </Section>
  );
}
