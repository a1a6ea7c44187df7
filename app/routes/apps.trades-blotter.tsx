import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Trades Blotter · Toolbox" }];

export default function TradesBlotterPage() {
  return <Page title="Trades Blotter" description="This area arrives in a later release." />;
}
