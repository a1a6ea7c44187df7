import { Contact } from "lucide-react";
import { ComingLater } from "~/features/placeholder/ComingLater";
import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Customers · Toolbox" }];

export default function CustomersPage() {
  return (
    <Page title="Customers" description="The broker's clients and the trading accounts they own">
      <ComingLater
        icon={Contact}
        what="Search, filter and edit clients, their KYC state and tags, link their trading accounts on any platform, and export the list."
      />
    </Page>
  );
}
