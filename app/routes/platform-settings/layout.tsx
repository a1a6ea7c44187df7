import { ServerOff } from "lucide-react";
import { Link, Outlet, useLocation, useParams } from "react-router";
import { routeRules, type TradePlatformType } from "@core/routeValidation";
import { validatedLoader } from "~/features/routing/validatedLoader";
import { ConnectionStateIndicator } from "~/features/trade-platforms/ConnectionStateIndicator";
import { usePlatformLiveState } from "~/features/trade-platforms/live/usePlatformLiveState";
import { PlatformTypeBadge } from "~/features/trade-platforms/PlatformTypeBadge";
import { platformSettingsPath } from "~/features/trade-platforms/platformTypes";
import { useTradePlatform, type TradePlatform } from "~/profile";
import { Button } from "~/ui/Button";
import { EmptyState } from "~/ui/EmptyState";
import { NavTabs, type NavTab } from "~/ui/NavTabs";
import { Page } from "~/ui/Page";
import { SectionBoundary } from "~/ui/SectionBoundary";

// docs/requirements.md#r-routes: a known platform type and a UUID, or the fatal 'Page Not Found: {path}'.
// One step for both: React Router strips `loader` from the browser bundle, so neither may name the other.
const validate = validatedLoader(routeRules.tradePlatform);
export const loader = validate;
export const clientLoader = validate;

export const meta = () => [{ title: "Trade platform settings · Toolbox" }];

function tabsFor(p: { type: TradePlatformType; id: string }): NavTab[] {
  const editor: NavTab =
    p.type === "MatchTrader"
      ? { label: "Match-Trader editor", to: platformSettingsPath(p, "MatchTraderEditor") }
      : { label: "MT4/MT5 editor", to: platformSettingsPath(p, "MT4MT5editor") };
  return [
    { label: "General", to: platformSettingsPath(p), end: true },
    { label: "Applications", to: platformSettingsPath(p, "apps") },
    { label: "Dealing", to: platformSettingsPath(p, "dealing") },
    { label: "Plugins", to: platformSettingsPath(p, "plugins") },
    editor,
  ];
}

/** One trade platform's settings, a tab per child route; the editor tab follows its type. */
export default function PlatformSettingsLayout() {
  const { tradePlatformType, tradePlatformId } = useParams();
  const platform = useTradePlatform(tradePlatformId);
  const { pathname } = useLocation();
  if (!platform || platform.type !== tradePlatformType) {
    return (
      <Page title="Trade platform settings">
        <EmptyState
          icon={ServerOff}
          title="This trade platform is not in the current organization"
          description="It may have been deleted, or it belongs to another organization: switch organization to open it."
          action={
            <Button asChild variant="secondary">
              <Link to="/">Back to overview</Link>
            </Button>
          }
        />
      </Page>
    );
  }
  return (
    <Page
      eyebrow="Trade platform"
      title={
        <span className="flex flex-wrap items-center gap-3">
          {platform.name}
          <PlatformTypeBadge type={platform.type} long />
        </span>
      }
      actions={
        <SectionBoundary name="The platform's live state">
          <LiveState platform={platform} />
        </SectionBoundary>
      }
    >
      <NavTabs tabs={tabsFor(platform)} label="Trade platform settings sections" className="mb-6" />
      {/* A broken tab leaves the tabs working: another tab tries again. */}
      <SectionBoundary name="Trade platform settings" resetKeys={[pathname]}>
        <Outlet />
      </SectionBoundary>
    </Page>
  );
}

function LiveState({ platform }: { platform: TradePlatform }) {
  const { display } = usePlatformLiveState(platform);
  return <ConnectionStateIndicator state={display} showLabel className="text-sm" />;
}
