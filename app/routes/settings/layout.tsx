import { Outlet } from "react-router";
import { useCurrentOrganization } from "~/profile";
import { NavTabs, type NavTab } from "~/ui/NavTabs";
import { Page } from "~/ui/Page";

const TABS: NavTab[] = [
  { label: "General", to: "/settings", end: true },
  { label: "Members", to: "/settings/members" },
  { label: "Security", to: "/settings/security" },
  { label: "Notifications", to: "/settings/notifications" },
  { label: "Organizations", to: "/settings/organizations" },
];

export const meta = () => [{ title: "Settings · Toolbox" }];

/** Organization settings: one tab per child route (SPEC §2). */
export default function SettingsLayout() {
  const organization = useCurrentOrganization();
  return (
    <Page title="Settings" eyebrow={organization?.name}>
      <NavTabs tabs={TABS} label="Settings sections" className="mb-6" />
      <Outlet />
    </Page>
  );
}
