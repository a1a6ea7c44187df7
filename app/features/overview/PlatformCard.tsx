import { ChevronRight } from "lucide-react";
import { Link } from "react-router";
import type { TradePlatform } from "~/profile";
import { EnabledState } from "../trade-platforms/EnabledState";
import { PlatformTypeBadge } from "../trade-platforms/PlatformTypeBadge";
import { PLATFORM_TYPE_LABELS, platformSettingsPath } from "../trade-platforms/platformTypes";
import { Card } from "~/ui/Card";
import { cn, focusRing } from "~/ui/cn";

/** One platform on the overview; the whole card opens its settings. */
export function PlatformCard({ platform }: { platform: TradePlatform }) {
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
      <div className="flex items-center justify-between border-t border-border px-4 py-2.5">
        <EnabledState enabled={platform.enable} showLabel />
        <ChevronRight aria-hidden className="size-4 text-muted transition-transform group-hover:translate-x-0.5" />
      </div>
    </Card>
  );
}
