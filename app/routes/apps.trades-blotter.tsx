import { Activity } from "lucide-react";
import { ComingLater } from "~/features/placeholder/ComingLater";
import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Trades Blotter · Toolbox" }];

export default function TradesBlotterPage() {
  return (
    <Page title="Trades Blotter" description="Every trade and deal on your platforms">
      <ComingLater
        icon={Activity}
        what="Live and historical trades across the chosen platforms: filters, pause and resume, totals and net exposure per symbol, and export of the current view."
      />
    </Page>
  );
}
