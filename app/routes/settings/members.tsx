import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Members · Toolbox" }];

export default function MembersPage() {
  return <Page title="Members" description="This area arrives in a later release." />;
}
