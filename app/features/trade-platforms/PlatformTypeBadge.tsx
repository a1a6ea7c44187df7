import type { TradePlatformType } from "@core/routeValidation";
import { Badge } from "~/ui/Badge";
import { cn } from "~/ui/cn";
import { PLATFORM_TYPE_LABELS, PLATFORM_TYPE_SHORT } from "./platformTypes";

const tones: Record<TradePlatformType, string> = {
  MT4: "border-info/25 bg-info/10 text-info",
  MT5: "border-primary/25 bg-primary/10 text-primary",
  MatchTrader: "border-warning/30 bg-warning/15 text-fg",
};

/** MT4 / MT5 / MTR, coloured per type; screen readers hear the full platform name. */
export function PlatformTypeBadge({ type, long = false, className }: { type: TradePlatformType; long?: boolean; className?: string }) {
  return (
    <Badge className={cn("rounded-md font-mono tracking-tight", tones[type], className)} title={PLATFORM_TYPE_LABELS[type]}>
      {long ? (
        PLATFORM_TYPE_LABELS[type]
      ) : (
        <>
          <span aria-hidden>{PLATFORM_TYPE_SHORT[type]}</span>
          <span className="sr-only">{PLATFORM_TYPE_LABELS[type]}</span>
        </>
      )}
    </Badge>
  );
}
