import { z } from "zod";

export const TRADE_PLATFORM_TYPES = ["MT4", "MT5", "MatchTrader"] as const;

export const TradePlatformSchema = z.object({
  id: z.guid(),
  organizationId: z.guid(),
  type: z.enum(TRADE_PLATFORM_TYPES),
  name: z.string(),
  enable: z.boolean(),
});

export const TradePlatformListSchema = z.array(TradePlatformSchema);
