import { Gauge } from "lucide-react";
import { ComingLater } from "~/features/placeholder/ComingLater";
import { Section } from "~/ui/Section";

export const meta = () => [{ title: "Copier status · Toolbox" }];

export default function CopierStatusPage() {
  return (
    <Section title="Status">
      <ComingLater
        icon={Gauge}
        what="Each link live: running, paused or failing, last copy, copies today, latency p50/p99, every failed copy with its reason, and divergence between source and followers with a resync."
      />
    </Section>
  );
}
