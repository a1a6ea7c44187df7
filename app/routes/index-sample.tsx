import { Page } from "~/ui/Page";

export const meta = () => [{ title: "UI building blocks · Toolbox" }];

export default function IndexSamplePage() {
  return <Page title="UI building blocks" description="This area arrives in a later release." />;
}
