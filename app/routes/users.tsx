import { Users } from "lucide-react";
import { ComingLater } from "~/features/placeholder/ComingLater";
import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Users · Toolbox" }];

export default function UsersPage() {
  return (
    <Page title="Users" description="Trading accounts across the organization's platforms">
      <ComingLater icon={Users} what="Accounts with their group, leverage, balance, equity and margin; open positions, deal history and journal; balance and credit operations done exactly once." />
    </Page>
  );
}
