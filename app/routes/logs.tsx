import { Outlet } from "react-router";
import { NavTabs } from "~/ui/NavTabs";
import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Logs · Toolbox" }];

const TABS = [
  { label: "Audit", to: ".", end: true },
  { label: "Server journal", to: "journal" },
] as const;

/** /logs: the audit log (index) and each platform's server journal (docs/logs.md). */
export default function LogsLayout() {
  return (
    <Page title="Logs" description="Who did what in Toolbox, and each platform's server journal">
      <NavTabs tabs={TABS} label="Logs" className="mb-6" />
      <Outlet />
    </Page>
  );
}
