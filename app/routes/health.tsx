import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Health · Toolbox" }];

export default function HealthPage() {
  return <Page title="Health" description="This area arrives in a later release." />;
}
