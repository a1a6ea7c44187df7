import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Dealing · Toolbox" }];

export default function PlatformDealingPage() {
  return <Page title="Dealing" description="This area arrives in a later release." />;
}
