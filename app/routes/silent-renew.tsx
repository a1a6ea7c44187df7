import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Renewing · Toolbox" }];

export default function SilentRenewPage() {
  return <Page title="Renewing" description="This area arrives in a later release." />;
}
