import { ChevronRight } from "lucide-react";
import { Link } from "react-router";
import type { TradePlatform } from "~/profile";
import {
  ConnectionStateIndicator,
  PLATFORM_TYPE_LABELS,
  platformSettingsPath,
  PlatformTypeBadge,
  usePlatformLiveState,
  useServerTime,
} from "~/features/trade-platforms";
import { Card } from "~/ui/Card";
import { cn, focusRing } from "~/ui/cn";

const clock = new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false, timeZone: "UTC" });

/** One platform on the overview with its live connection state; the whole card opens its settings. */
export function PlatformCard({ platform }: { platform: TradePlatform }) {
  const { display, live } = usePlatformLiveState(platform);
  const serverTime = useServerTime(live);
  return (
    <Card className="group relative transition-colors hover:border-primary/40">
      <div className="flex items-start justify-between gap-3 p-4">
        <div className="min-w-0">
          <h3 className="truncate font-semibold">
            <Link to={platformSettingsPath(platform)} className={cn("rounded-sm after:absolute after:inset-0 after:content-['']", focusRing)}>
              {platform.name}
            </Link>
          </h3>
          <p className="mt-0.5 text-xs text-muted">{PLATFORM_TYPE_LABELS[platform.type]}</p>
        </div>
        <PlatformTypeBadge type={platform.type} />
      </div>
      {display === "failed" && live?.lastError ? <p className="line-clamp-2 px-4 pb-3 text-xs text-danger">{live.lastError}</p> : null}
      <div className="flex items-center justify-between gap-3 border-t border-border px-4 py-2.5">
        <ConnectionStateIndicator state={display} showLabel />
        <span className="flex items-center gap-2">
          {serverTime && display === "connected" ? (
            <span className="font-mono text-xs text-muted tabular-nums" title="Server time (UTC)">
              <span className="sr-only">Server time </span>
              {clock.format(serverTime)} UTC
            </span>
          ) : null}
          <ChevronRight aria-hidden className="size-4 text-muted transition-transform group-hover:translate-x-0.5" />
        </span>
      </div>
    </Card>
  );
}
