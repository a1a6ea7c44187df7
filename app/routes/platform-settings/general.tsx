import { Page } from "~/ui/Page";

export const meta = () => [{ title: "General · Toolbox" }];

export default function PlatformGeneralPage() {
  return <Page title="General" description="This area arrives in a later release." />;
}
