import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Applications · Toolbox" }];

export default function PlatformAppsPage() {
  return <Page title="Applications" description="This area arrives in a later release." />;
}
