import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Organization settings · Toolbox" }];

export default function OrganizationSettingsPage() {
  return <Page title="Organization settings" description="This area arrives in a later release." />;
}
