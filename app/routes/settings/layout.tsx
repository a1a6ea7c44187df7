import { Outlet, useLocation } from "react-router";
import { useCurrentOrganization } from "~/profile";
import { NavTabs, type NavTab } from "~/ui/NavTabs";
import { Page } from "~/ui/Page";
import { SectionBoundary } from "~/ui/SectionBoundary";

const TABS: NavTab[] = [
  { label: "General", to: "/settings", end: true },
  { label: "Members", to: "/settings/members" },
  { label: "Security", to: "/settings/security" },
  { label: "Notifications", to: "/settings/notifications" },
  { label: "Organizations", to: "/settings/organizations" },
];

export const meta = () => [{ title: "Settings · Toolbox" }];

/** Organization settings: one tab per child route (docs/requirements.md#r-routes). */
export default function SettingsLayout() {
  const organization = useCurrentOrganization();
  const { pathname } = useLocation();
  return (
    <Page title="Settings" eyebrow={organization?.name}>
      <NavTabs tabs={TABS} label="Settings sections" className="mb-6" />
      {/* A broken tab leaves the tabs working: another tab tries again. */}
      <SectionBoundary name="Settings" resetKeys={[pathname]}>
        <Outlet />
      </SectionBoundary>
    </Page>
  );
}
