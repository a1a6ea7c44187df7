/**
 * What the trading accounts endpoints answer, written once: the API shapes its responses with
 * these (extra fields never leave), the OpenAPI document shows them, and the app's types are
 * inferred from them (app/features/accounts/accountTypes.ts). Money is a decimal string
 * ("1250.50"), exact; the app only formats it.
 */
import { z } from "zod";
import { JOURNAL_LEVELS } from "../trading/journal.ts";
import { SIDES } from "../trading/position.ts";
import { TRADE_PLATFORM_TYPES } from "../trading/platform.ts";

export const MoneySchema = z.string().meta({ description: 'Decimal amount in the account currency, e.g. "1250.50"' });
const money = MoneySchema;

export const AccountRowSchema = z.object({
  platformId: z.guid(),
  platformName: z.string(),
  platformType: z.enum(TRADE_PLATFORM_TYPES),
  login: z.string(),
  group: z.string(),
  name: z.string(),
  email: z.string(),
  leverage: z.number().int(),
  currency: z.string(),
  balance: money,
  credit: money,
  equity: money,
  margin: money,
  freeMargin: money,
  marginLevel: z.string().nullable().meta({ description: 'Equity / margin in percent ("253.40"); null while no margin is used' }),
  marginState: z.enum(["ok", "marginCall", "stopOut"]),
  enabled: z.boolean(),
  readOnly: z.boolean(),
  registration: z.iso.datetime(),
  lastAccess: z.iso.datetime().nullable(),
});
export type AccountRow = z.infer<typeof AccountRowSchema>;

export const AccountListSchema = z.object({ items: z.array(AccountRowSchema), total: z.number().int() });
export type AccountPage = z.infer<typeof AccountListSchema>;

export const AccountDetailSchema = AccountRowSchema.extend({
  phone: z.string(),
  country: z.string(),
  city: z.string(),
  address: z.string(),
  comment: z.string(),
  /** When the mirror last heard of the account; the figures are live when the platform answered. */
  updatedAt: z.iso.datetime(),
  live: z.boolean().meta({ description: "The figures come from the platform just now (false: the last mirrored ones, the platform did not answer)" }),
});
export type AccountDetail = z.infer<typeof AccountDetailSchema>;

const side = z.enum(SIDES);
export const LotsSchema = z.string().meta({ description: 'Volume in lots, e.g. "0.1"' });
const lots = LotsSchema;
export const NativeIdsSchema = z
  .record(z.string(), z.unknown())
  .meta({ description: "The platform's own ids (MT4 ticket, MT5 deal/order/position, Match-Trader UUIDs)" });
const native = NativeIdsSchema;

export const PositionSchema = z.object({
  id: z.string(),
  login: z.string(),
  symbol: z.string(),
  side,
  volume: lots,
  openTime: z.iso.datetime(),
  openPrice: z.number(),
  currentPrice: z.number(),
  sl: z.number().nullable(),
  tp: z.number().nullable(),
  profit: money,
  swap: money,
  comment: z.string(),
  reason: z.string(),
  native,
  /** The symbol's trading rules, for a partial close's volume and the stops' digits (absent when the platform does not list the symbol). */
  digits: z.number().int().optional(),
  volumeMin: lots.optional(),
  volumeStep: lots.optional(),
});
export type PositionRow = z.infer<typeof PositionSchema>;

export const DealSchema = z.object({
  id: z.string(),
  login: z.string(),
  time: z.iso.datetime(),
  action: z.enum(["buy", "sell", "balance", "credit"]),
  entry: z.enum(["in", "out"]).nullable(),
  positionId: z.string().nullable(),
  symbol: z.string().nullable(),
  volume: lots,
  price: z.number(),
  profit: money,
  commission: money,
  swap: money,
  comment: z.string(),
  reason: z.string(),
  native,
});
export type DealRow = z.infer<typeof DealSchema>;

export const JournalEntrySchema = z.object({
  id: z.string(),
  time: z.iso.datetime(),
  level: z.enum(JOURNAL_LEVELS),
  sourceIp: z.string().nullable(),
  login: z.string().nullable(),
  message: z.string(),
});
export type JournalRow = z.infer<typeof JournalEntrySchema>;
