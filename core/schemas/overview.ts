/**
 * GET /api/overview (docs/overview.md): the organization's business at a glance, computed in the
 * database from the accounts mirror and the trade history store. "Today", the days and the hours
 * are the caller's: their own display zone, else the organization's, else UTC (decision 0078).
 */
import { z } from "zod";
import { LotsSchema, MoneySchema } from "./accountViews.ts";
import { CopierTotalsSchema } from "./copierStatus.ts";

export const OverviewPlatformSchema = z.object({
  platformId: z.string(),
  name: z.string(),
  type: z.string(),
  state: z.string(),
  lastError: z.string().nullable(),
  accounts: z.number().int(),
  /**
   * Whether the trade history store records this platform (the Trades Blotter app is assigned);
   * without it, the positions and today's figures are null.
   */
  tradeHistory: z.boolean(),
  openPositions: z.number().int().nullable(),
  /** Lots of the buy and sell deals today. */
  volumeToday: LotsSchema.nullable(),
  /** The clients' realised result today: profit + commission + swap of the buy and sell deals. */
  profitToday: MoneySchema.nullable(),
  /** Balance deals today: the positive ones (deposits) and the negative ones, as a positive amount (withdrawals). */
  depositsToday: MoneySchema.nullable(),
  withdrawalsToday: MoneySchema.nullable(),
  /** Credit deals today, signed: credit given less credit taken back. Like deposits, never in the P/L. */
  creditToday: MoneySchema.nullable(),
});
export type OverviewPlatform = z.infer<typeof OverviewPlatformSchema>;

export const OverviewPointSchema = z.object({
  platformId: z.string(),
  /** The bucket's start (an hour or a day in `timeZone`). */
  at: z.string(),
  volume: LotsSchema,
  profit: MoneySchema,
});
export type OverviewPoint = z.infer<typeof OverviewPointSchema>;

export const OverviewSchema = z.object({
  asOf: z.string(),
  timeZone: z.string().meta({ description: "The zone whose days and hours are counted: the member's own, else the organization's, else UTC" }),
  dayStart: z.string().meta({ description: "Today's start (00:00 in `timeZone`)" }),
  platforms: z.array(OverviewPlatformSchema),
  /** The last 24 hours by hour, and the last 7 days by day, in `timeZone`; buckets without deals are left out. */
  hourly: z.array(OverviewPointSchema),
  daily: z.array(OverviewPointSchema),
  /**
   * The Trades Copier's tile: links, followers, copies and failures today (the organization's
   * day), p99 of the whole copy over the last 24 hours (docs/trades-copier.md "Status"). Null for a
   * member without tradesCopier read.
   */
  copier: CopierTotalsSchema.nullable(),
});
export type Overview = z.infer<typeof OverviewSchema>;
