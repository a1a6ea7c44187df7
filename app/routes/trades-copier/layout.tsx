import { Outlet } from "react-router";
import { NavTabs, type NavTab } from "~/ui/NavTabs";
import { Page } from "~/ui/Page";

const TABS: NavTab[] = [
  { label: "Copy links", to: "/apps/trades-copier", end: true },
  { label: "Status", to: "/apps/trades-copier/status" },
];

export const meta = () => [{ title: "Trades Copier · Toolbox" }];

/** Trades Copier: its links (default) and their live status (docs/requirements.md#r-routes child pages). */
export default function TradesCopierLayout() {
  return (
    <Page title="Trades Copier" description="Copy trades from source accounts to follower accounts, across servers and platform types.">
      <NavTabs tabs={TABS} label="Trades Copier sections" className="mb-6" />
      <Outlet />
    </Page>
  );
}
