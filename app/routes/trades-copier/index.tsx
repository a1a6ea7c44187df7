import { Copy } from "lucide-react";
import { ComingLater } from "~/features/placeholder/ComingLater";
import { Section } from "~/ui/Section";

export const meta = () => [{ title: "Trades Copier · Toolbox" }];

export default function TradesCopierPage() {
  return (
    <Section title="Copy links">
      <ComingLater
        icon={Copy}
        what="A source account and its followers on any platform, each with its volume mode, limits, direction, symbol mapping and filters, SL/TP and pending-order copying, and maximum delay and price deviation."
      />
    </Section>
  );
}
