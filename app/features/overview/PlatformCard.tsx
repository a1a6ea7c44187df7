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
import { formatInteger, formatMoney } from "~/ui/grid/format";
import { useFormat } from "~/ui/format";
import { Skeleton } from "~/ui/Skeleton";
import type { OverviewPlatform } from "./overviewApi";

/** Lots as the API gives them ("1.5"), grouped, with at least two decimals. */
export function formatVolume(lots: string | null): string {
  if (lots === null) return "—";
  const decimals = Math.max(2, lots.split(".")[1]?.length ?? 0);
  return formatMoney(lots, decimals);
}

/** The figures a platform's card shows, in order: label, value, and a tone for results. */
export function platformFigures(f: OverviewPlatform): { label: string; value: string; signed?: boolean }[] {
  return [
    { label: "Accounts", value: formatInteger(f.accounts) },
    { label: "Open positions", value: formatInteger(f.openPositions) },
    { label: "Volume today (lots)", value: formatVolume(f.volumeToday) },
    { label: "P/L today", value: formatMoney(f.profitToday), signed: true },
    { label: "Deposits today", value: formatMoney(f.depositsToday) },
    { label: "Withdrawals today", value: formatMoney(f.withdrawalsToday) },
    { label: "Credit today (net)", value: formatMoney(f.creditToday) },
  ];
}

/**
 * One platform on the overview: its live connection state, and its figures from GET /api/overview
 * (`figures`; undefined while loading). The name opens its settings.
 */
export function PlatformCard({ platform, figures }: { platform: TradePlatform; figures: OverviewPlatform | undefined }) {
  const { display, live } = usePlatformLiveState(platform);
  const serverTime = useServerTime(live);
  // The platform's clock reading, shown in the member's zone (core/format.ts) and named.
  const format = useFormat();
  const headingId = `overview-platform-${platform.id}`;
  return (
    <Card className="flex h-full flex-col" role="group" aria-labelledby={headingId} data-platform-id={platform.id}>
      <div className="flex items-start justify-between gap-3 p-4">
        <div className="min-w-0">
          <h3 id={headingId} className="truncate font-semibold">
            <Link to={platformSettingsPath(platform)} className={cn("rounded-sm hover:underline", focusRing)}>
              {platform.name}
            </Link>
          </h3>
          <p className="mt-0.5 text-xs text-muted">{PLATFORM_TYPE_LABELS[platform.type]}</p>
        </div>
        <PlatformTypeBadge type={platform.type} />
      </div>
      {display === "failed" && live?.lastError ? <p className="line-clamp-2 px-4 pb-3 text-xs text-danger">{live.lastError}</p> : null}
      <div className="flex-1 border-t border-border px-4 py-3">
        {!figures ? (
          <div className="grid gap-2" role="status" aria-busy="true" aria-label="Loading figures">
            <Skeleton className="h-4 w-2/3" />
            <Skeleton className="h-4 w-1/2" />
          </div>
        ) : (
          <>
            <dl className="grid grid-cols-2 gap-x-4 gap-y-1.5 text-sm" data-testid="platform-figures">
              {platformFigures(figures)
                .filter((f) => figures.tradeHistory || f.label === "Accounts")
                .map((f) => (
                  <div key={f.label} className="contents">
                    <dt className="text-muted">{f.label}</dt>
                    <dd
                      className={cn(
                        "text-right font-medium tabular-nums",
                        f.signed && f.value.startsWith("-") && "text-danger",
                        f.signed && !f.value.startsWith("-") && f.value !== "0.00" && "text-primary",
                      )}
                    >
                      {f.value}
                    </dd>
                  </div>
                ))}
            </dl>
            {figures.tradeHistory ? null : (
              <p className="mt-3 text-xs text-muted">
                Positions, volume, P/L, deposits, withdrawals and credit need the trade history.{" "}
                <Link to="/tradePlatforms/AssignApplicationModal?app=tradesBlotter" className={cn("font-medium text-primary hover:underline", focusRing)}>
                  Assign the Trades Blotter to record volume and P/L
                </Link>
              </p>
            )}
          </>
        )}
      </div>
      <div className="flex items-center justify-between gap-3 border-t border-border px-4 py-2.5">
        <ConnectionStateIndicator state={display} showLabel />
        <span className="flex items-center gap-2">
          {serverTime && display === "connected" ? (
            <span className="font-mono text-xs text-muted tabular-nums" title={`Server time, in ${format.timeZone}`} data-testid="platform-clock">
              <span className="sr-only">Server time </span>
              {format.time(serverTime)} {format.timeZone}
            </span>
          ) : null}
          <Link to={platformSettingsPath(platform)} aria-label={`${platform.name} settings`} className={cn("rounded-sm text-muted hover:text-fg", focusRing)}>
            <ChevronRight aria-hidden className="size-4" />
          </Link>
        </span>
      </div>
    </Card>
  );
}
