import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Overview · Toolbox" }];

export default function HomePage() {
  return <Page title="Overview" description="This area arrives in a later release." />;
}
