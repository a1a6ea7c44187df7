import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Organizations · Toolbox" }];

export default function OrganizationsPage() {
  return <Page title="Organizations" description="This area arrives in a later release." />;
}
