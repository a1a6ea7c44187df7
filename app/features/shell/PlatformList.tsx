import { Plus } from "lucide-react";
import { Link, NavLink } from "react-router";
import { useTradePlatforms, type TradePlatform } from "~/profile";
import { cn, focusRing } from "~/ui/cn";
import { ConnectionStateIndicator, platformSettingsPath, PlatformTypeBadge, usePlatformLiveState } from "~/features/trade-platforms";

/** The current organization's trade platforms, each a link to its settings with its live connection state. */
export function PlatformList() {
  const platforms = useTradePlatforms();
  return (
    <section aria-labelledby="sidebar-platforms" className="grid gap-1">
      <p id="sidebar-platforms" className="flex items-center justify-between px-2 pb-1 text-[11px] font-semibold tracking-wider text-muted uppercase">
        Trade platforms
        <span className="font-mono normal-case" aria-hidden>
          {platforms.length}
        </span>
      </p>
      {platforms.length ? (
        <ul className="grid gap-0.5">
          {platforms.map((p) => (
            <li key={p.id}>
              <NavLink
                to={platformSettingsPath(p)}
                className={({ isActive }) =>
                  cn(
                    "flex h-8 items-center gap-2 rounded-md px-2 text-sm transition-colors",
                    isActive ? "bg-primary/10 text-primary" : "text-fg/80 hover:bg-subtle hover:text-fg",
                    focusRing,
                    "focus-visible:ring-offset-0",
                  )
                }
              >
                <PlatformTypeBadge type={p.type} />
                <span className="min-w-0 flex-1 truncate">{p.name}</span>
                <LiveDot platform={p} />
              </NavLink>
            </li>
          ))}
        </ul>
      ) : (
        <p className="px-2 text-xs text-muted">No platform connected yet.</p>
      )}
      <Link
        to="/tradePlatforms/new"
        className={cn(
          "mt-1 flex h-8 items-center gap-2 rounded-md px-2 text-sm font-medium text-primary hover:bg-primary/10",
          focusRing,
          "focus-visible:ring-offset-0",
        )}
      >
        <Plus aria-hidden className="size-4" />
        Connect a platform
      </Link>
    </section>
  );
}

function LiveDot({ platform }: { platform: TradePlatform }) {
  const { display } = usePlatformLiveState(platform);
  return <ConnectionStateIndicator state={display} />;
}
