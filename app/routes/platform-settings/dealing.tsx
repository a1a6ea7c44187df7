import { useParams } from "react-router";
import { DealingPage } from "~/features/dealing/DealingPage";
import { Section } from "~/ui/Section";

export const meta = () => [{ title: "Dealing · Toolbox" }];

export default function PlatformDealingPage() {
  const { tradePlatformId } = useParams();
  return (
    <Section
      title="Dealing and execution"
      description="Execution profiles (spread markups, maximum deviation, execution delay, maximum volume per order, stale-quote threshold), the weekly schedule and holidays that switch them, and a manual override. Every change is recorded in the audit log."
    >
      <DealingPage platformId={tradePlatformId!} />
    </Section>
  );
}
