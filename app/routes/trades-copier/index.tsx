import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Trades Copier · Toolbox" }];

export default function TradesCopierPage() {
  return <Page title="Trades Copier" description="This area arrives in a later release." />;
}
