import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Match-Trader editor · Toolbox" }];

export default function MatchTraderEditorPage() {
  return <Page title="Match-Trader editor" description="This area arrives in a later release." />;
}
