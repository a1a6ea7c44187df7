import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Assign application · Toolbox" }];

export default function AssignApplicationPage() {
  return <Page title="Assign application" description="This area arrives in a later release." />;
}
