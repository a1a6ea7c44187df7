import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Security · Toolbox" }];

export default function SecurityPage() {
  return <Page title="Security" description="This area arrives in a later release." />;
}
