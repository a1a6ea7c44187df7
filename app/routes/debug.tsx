import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Debug · Toolbox" }];

export default function DebugPage() {
  return <Page title="Debug" description="This area arrives in a later release." />;
}
