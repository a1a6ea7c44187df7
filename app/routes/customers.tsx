import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Customers · Toolbox" }];

export default function CustomersPage() {
  return <Page title="Customers" description="This area arrives in a later release." />;
}
