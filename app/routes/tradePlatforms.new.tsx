import { PlugZap } from "lucide-react";
import { ComingLater } from "~/features/placeholder/ComingLater";
import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Connect a trade platform · Toolbox" }];

export default function NewTradePlatformPage() {
  return (
    <Page title="Connect a trade platform" description="MetaTrader 4, MetaTrader 5 or Match-Trader, or a simulated server of one of them.">
      <ComingLater
        icon={PlugZap}
        what="Choose the type, name it, give the server address or API URL and the manager credentials or API key, test the connection, then save. Secrets are stored encrypted and never sent back."
      />
    </Page>
  );
}
