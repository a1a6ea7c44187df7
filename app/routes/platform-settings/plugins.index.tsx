import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Plugins · Toolbox" }];

export default function PlatformPluginsPage() {
  return <Page title="Plugins" description="This area arrives in a later release." />;
}
