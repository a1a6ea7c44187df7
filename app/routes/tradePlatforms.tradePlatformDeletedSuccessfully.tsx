import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Trade platform deleted · Toolbox" }];

export default function TradePlatformDeletedPage() {
  return <Page title="Trade platform deleted" description="This area arrives in a later release." />;
}
