import { TRADE_PLATFORM_LABELS, type TradePlatformType } from "@core/trading/platform";

/** How each platform type is named on screen (the route keeps the spec's spelling). */
export const PLATFORM_TYPE_LABELS: Record<TradePlatformType, string> = TRADE_PLATFORM_LABELS;

export const PLATFORM_TYPE_SHORT: Record<TradePlatformType, string> = {
  MT4: "MT4",
  MT5: "MT5",
  MatchTrader: "MTR",
};

export function platformSettingsPath(p: { type: TradePlatformType; id: string }, tab = ""): string {
  return `/tradePlatforms/${p.type}/${p.id}/settings${tab ? `/${tab}` : ""}`;
}
