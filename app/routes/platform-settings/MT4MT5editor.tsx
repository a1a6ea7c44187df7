import { Page } from "~/ui/Page";

export const meta = () => [{ title: "MT4/MT5 editor · Toolbox" }];

export default function Mt4Mt5EditorPage() {
  return <Page title="MT4/MT5 editor" description="This area arrives in a later release." />;
}
