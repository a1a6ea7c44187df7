import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Connect a trade platform · Toolbox" }];

export default function NewTradePlatformPage() {
  return <Page title="Connect a trade platform" description="This area arrives in a later release." />;
}
