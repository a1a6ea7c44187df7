import { ShieldOff } from "lucide-react";
import { NewPlatformForm } from "~/features/trade-platforms/form/NewPlatformForm";
import { useAccess } from "~/profile";
import { EmptyState } from "~/ui/EmptyState";
import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Connect a trade platform · Toolbox" }];

export default function NewTradePlatformPage() {
  const { hasModule } = useAccess();
  return (
    <Page title="Connect a trade platform" description="MetaTrader 4, MetaTrader 5 or Match-Trader: your own server, or a simulated one to try Toolbox safely.">
      {hasModule("tradePlatforms", "write") ? (
        <NewPlatformForm />
      ) : (
        <EmptyState
          icon={ShieldOff}
          title="You can't connect platforms"
          description="Connecting a trade platform needs write access to trade platforms. Ask an administrator of this organization."
        />
      )}
    </Page>
  );
}
