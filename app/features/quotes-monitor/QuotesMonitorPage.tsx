import { Gauge, ShieldOff } from "lucide-react";
import { useAccess } from "~/profile";
import { EmptyState } from "~/ui/EmptyState";
import { Page } from "~/ui/Page";

/** `/apps/quotes-monitor`: every symbol of the monitor's platforms, live (docs/quotes-monitor.md). */
export function QuotesMonitorPage() {
  const { hasModule } = useAccess();
  if (!hasModule("quotesMonitor", "read")) {
    return (
      <Page title="Quotes Monitor">
        <EmptyState
          icon={ShieldOff}
          title="You can't see the Quotes Monitor"
          description="The Quotes Monitor needs read access to its module. Ask an administrator of this organization."
        />
      </Page>
    );
  }
  return (
    <Page title="Quotes Monitor" description="Every symbol of every platform, live: spreads and gaps at a glance.">
      <EmptyState icon={Gauge} title="Quotes Monitor" description="The live table is on its way." />
    </Page>
  );
}
