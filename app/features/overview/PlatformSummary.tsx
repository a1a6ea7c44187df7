import { TRADE_PLATFORM_TYPES } from "@core/routeValidation";
import type { TradePlatform } from "~/profile";
import { BarChart } from "~/ui/charts/BarChart";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "~/ui/Card";
import { displayState, PLATFORM_TYPE_LABELS, useLiveStateStore, useLiveStateStream } from "~/features/trade-platforms";

const tones = { MT4: "info", MT5: "primary", MatchTrader: "warning" } as const;

/** Counts (live: how many are connected right now) and the mix of platform types in this organization. */
export function PlatformSummary({ platforms }: { platforms: readonly TradePlatform[] }) {
  useLiveStateStream();
  const live = useLiveStateStore((s) => s.platforms);
  const states = platforms.map((p) => displayState(p, live[p.id]));
  const stats = [
    { label: "Platforms", value: platforms.length },
    { label: "Connected", value: states.filter((s) => s === "connected").length },
    { label: "Not connected", value: states.filter((s) => s !== "connected" && s !== "disabled").length },
    { label: "Disabled", value: states.filter((s) => s === "disabled").length },
  ];
  const mix = TRADE_PLATFORM_TYPES.map((type) => ({
    label: PLATFORM_TYPE_LABELS[type],
    value: platforms.filter((p) => p.type === type).length,
    tone: tones[type],
  }));
  return (
    <div className="grid gap-4 lg:grid-cols-[2fr_3fr]">
      {/* Tiles in a row on tablets; two by two beside the chart on wide screens. */}
      <dl className="grid grid-cols-2 gap-4 sm:grid-cols-4 lg:grid-cols-2">
        {stats.map((s) => (
          <Card key={s.label} className="flex flex-col justify-center gap-1 p-4">
            <dt className="text-xs font-medium text-muted lg:text-sm">{s.label}</dt>
            <dd className="text-2xl font-semibold tabular-nums">{s.value}</dd>
          </Card>
        ))}
      </dl>
      <Card>
        <CardHeader className="pt-4">
          <CardTitle className="text-sm">Platforms by type</CardTitle>
          <CardDescription className="text-xs">Connected servers of this organization</CardDescription>
        </CardHeader>
        <CardContent className="pt-3 pb-4">
          <BarChart data={mix} label="Platforms by type" height={120} />
        </CardContent>
      </Card>
    </div>
  );
}
