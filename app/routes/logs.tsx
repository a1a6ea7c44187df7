import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Logs · Toolbox" }];

export default function LogsPage() {
  return <Page title="Logs" description="This area arrives in a later release." />;
}
