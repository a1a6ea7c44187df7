import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Copier status · Toolbox" }];

export default function CopierStatusPage() {
  return <Page title="Copier status" description="This area arrives in a later release." />;
}
