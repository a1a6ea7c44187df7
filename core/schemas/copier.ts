/**
 * The Trades Copier's contract, once (docs/trades-copier.md): a copy link (a source account →
 * follower accounts, any platform type to any other) and each follower's settings, as the API
 * (server/modules/tradesCopier/, /api/tradesCopier/links), the OpenAPI document, the links screen
 * (app/features/trades-copier/) and the copy rules (core/copier/) share them. Lots are written as
 * text ("0.05") at the edge, as everywhere in the API; the rules work in Volume (1/10000 lot).
 */
import { z } from "zod";
import { LoginSchema } from "./accounts.ts";
import { LOTS_PATTERN } from "./positionOperations.ts";

const lots = (name: string) =>
  z
    .string({ error: `${name} must be lots written as text, such as "0.05"` })
    .trim()
    .regex(LOTS_PATTERN, { error: `${name} must be lots such as "0.05" (at most 4 decimals)` })
    .refine((v) => Number(v) > 0, { error: `${name} must be more than zero` });

const positiveNumber = (name: string, max: number) =>
  z
    .number({ error: `${name} must be a number` })
    .positive({ error: `${name} must be more than zero` })
    .max(max, { error: `${name} can be at most ${max}` });

export const AccountRefSchema = z.object(
  {
    platformId: z.guid({ error: "Choose a platform" }),
    login: LoginSchema,
  },
  { error: "An account is a platform and a login" },
);
export type AccountRef = z.infer<typeof AccountRefSchema>;

/** How a follower's volume follows the source's (docs/trades-copier.md "Volume"). */
export const VolumeModeSchema = z.discriminatedUnion(
  "mode",
  [
    z.object({ mode: z.literal("same") }).meta({ description: "The source's volume" }),
    z
      .object({ mode: z.literal("multiplier"), multiplier: positiveNumber("The multiplier", 100) })
      .meta({ description: "The source's volume times the multiplier" }),
    z.object({ mode: z.literal("fixed"), lots: lots("The fixed volume") }).meta({ description: "Always these lots" }),
    z
      .object({ mode: z.literal("equity"), factor: positiveNumber("The factor", 100).default(1) })
      .meta({ description: "The source's volume × follower equity ÷ source equity × factor" }),
    z
      .object({ mode: z.literal("balance"), factor: positiveNumber("The factor", 100).default(1) })
      .meta({ description: "The source's volume × follower balance ÷ source balance × factor" }),
    z.object({ mode: z.literal("riskPercent"), percent: positiveNumber("The risk", 100) }).meta({
      description: "The volume whose loss at the source's stop loss is this percent of the follower's equity; a copy without a stop loss is skipped",
    }),
  ],
  { error: "The volume mode must be one of same, multiplier, fixed, equity, balance or riskPercent" },
);
export type VolumeMode = z.infer<typeof VolumeModeSchema>;

export const COPY_STOPS_MODES = ["copy", "none", "fixed"] as const;

export const CopyStopsSchema = z.discriminatedUnion(
  "mode",
  [
    z.object({ mode: z.literal("copy") }).meta({ description: "The source's SL and TP (swapped on reverse)" }),
    z.object({ mode: z.literal("none") }).meta({ description: "No SL or TP on the follower" }),
    z
      .object({
        mode: z.literal("fixed"),
        slPoints: z.int({ error: "The SL distance must be whole points" }).positive().max(1_000_000).nullable(),
        tpPoints: z.int({ error: "The TP distance must be whole points" }).positive().max(1_000_000).nullable(),
      })
      .meta({ description: "SL and TP at these distances in the follower symbol's points from its open price" }),
  ],
  { error: "Stops must be copy, none or fixed" },
);
export type CopyStops = z.infer<typeof CopyStopsSchema>;

const symbolName = z.string().trim().min(1, { error: "A symbol name cannot be empty" }).max(64, { error: "A symbol name is at most 64 characters" });

/** Explicit pairs first; a symbol without a pair has the source's prefix/suffix swapped for the follower's. */
export const SymbolMappingSchema = z.object({
  pairs: z
    .array(z.object({ source: symbolName, follower: symbolName }), { error: "Symbol pairs must be a list" })
    .max(1000, { error: "At most 1,000 symbol pairs" })
    .refine((pairs) => new Set(pairs.map((p) => p.source.toLowerCase())).size === pairs.length, {
      error: "Each source symbol can be mapped once",
    })
    .default([]),
  sourcePrefix: z.string().max(16).default(""),
  sourceSuffix: z.string().max(16).default(""),
  followerPrefix: z.string().max(16).default(""),
  followerSuffix: z.string().max(16).default(""),
});
export type SymbolMapping = z.infer<typeof SymbolMappingSchema>;

export const RISK_STOP_ACTIONS = ["suspend", "closeAndSuspend"] as const;
const riskStop = (name: string) =>
  z
    .object({
      amount: positiveNumber(name, 1e12),
      action: z.enum(RISK_STOP_ACTIONS, { error: `${name}'s action must be suspend or closeAndSuspend` }),
    })
    .nullable()
    .default(null);

export const FollowerSettingsSchema = z
  .object({
    account: AccountRefSchema,
    enabled: z.boolean().default(true),
    volume: VolumeModeSchema.default({ mode: "same" }),
    /** Scale by the ratio of the two symbols' contract sizes (e.g. 100,000 vs 1,000 per lot). */
    alignContractSize: z.boolean().default(true),
    minLots: lots("The minimum volume").nullable().default(null),
    maxLots: lots("The maximum volume").nullable().default(null),
    /** Below the minimum (the follower's or the symbol's), copy the minimum instead of skipping. */
    forceMinimum: z.boolean().default(false),
    direction: z.enum(["same", "reverse"], { error: "The direction must be same or reverse" }).default("same"),
    symbols: SymbolMappingSchema.default({
      pairs: [],
      sourcePrefix: "",
      sourceSuffix: "",
      followerPrefix: "",
      followerSuffix: "",
    }),
    /** MetaTrader mask of source symbols to copy (core/trading/mask.ts); empty copies all. */
    allowedSymbols: z.string().max(1000).default(""),
    blockedSymbols: z.string().max(1000).default(""),
    stops: CopyStopsSchema.default({ mode: "copy" }),
    copyPendingOrders: z.boolean().default(true),
    copyPartialCloses: z.boolean().default(true),
    copyExistingPositions: z.boolean().default(false),
    /** A signal older than this when the engine sees it is skipped; null never skips for age. */
    maxDelaySeconds: z.int().positive().max(86_400).nullable().default(null),
    /** A follower price this many points or more from the source's is skipped; null never skips. */
    maxDeviationPoints: z.int().positive().max(1_000_000).nullable().default(null),
    equityFloor: riskStop("The equity floor"),
    dailyLossLimit: riskStop("The daily loss limit"),
    /** No new positions; closes (and stop changes) are still copied. */
    closeOnly: z.boolean().default(false),
  })
  .refine((f) => f.minLots === null || f.maxLots === null || Number(f.minLots) <= Number(f.maxLots), {
    error: "The minimum volume cannot be above the maximum",
    path: ["maxLots"],
  });
export type FollowerSettings = z.infer<typeof FollowerSettingsSchema>;
export type FollowerSettingsInput = z.input<typeof FollowerSettingsSchema>;

export const CopyLinkBodySchema = z
  .object(
    {
      name: z.string().trim().min(1, { error: "Give the link a name" }).max(100, { error: "A name is at most 100 characters" }),
      enabled: z.boolean().default(true),
      source: AccountRefSchema,
      followers: z
        .array(FollowerSettingsSchema, { error: "Followers must be a list" })
        .min(1, { error: "Add at least one follower" })
        .max(1000, { error: "A link has at most 1,000 followers" }),
    },
    { error: "The body must be a copy link: a name, a source account and followers" },
  )
  .superRefine((link, ctx) => {
    const key = (a: AccountRef) => `${a.platformId}:${a.login}`;
    const seen = new Set<string>();
    link.followers.forEach((f, i) => {
      if (key(f.account) === key(link.source)) {
        ctx.addIssue({ code: "custom", path: ["followers", i, "account"], message: "An account cannot follow itself" });
      }
      if (seen.has(key(f.account))) {
        ctx.addIssue({ code: "custom", path: ["followers", i, "account"], message: "This account already follows this link" });
      }
      seen.add(key(f.account));
    });
  });
export type CopyLinkBody = z.infer<typeof CopyLinkBodySchema>;
export type CopyLinkBodyInput = z.input<typeof CopyLinkBodySchema>;

/** A follower suspended by a risk stop (docs/trades-copier.md "Risk stops and close-only"); a member with write access resumes it. */
export const FollowerSuspensionSchema = z.object({
  account: AccountRefSchema,
  stop: z.enum(["equityFloor", "dailyLossLimit"]),
  action: z.enum(RISK_STOP_ACTIONS),
  /** Why, in words, with the figures when it tripped. */
  reason: z.string(),
  /** When it tripped. */
  at: z.string(),
  /** When it lifts by itself (the daily loss limit: the organization's next day); null: only a member resumes it. */
  until: z.string().nullable(),
});
export type FollowerSuspension = z.infer<typeof FollowerSuspensionSchema>;

export const CopyLinkSchema = z.object({
  id: z.guid(),
  name: z.string(),
  enabled: z.boolean(),
  source: AccountRefSchema,
  followers: z.array(FollowerSettingsSchema),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Optimistic concurrency: a PUT carries the version it read (If-Match) and is refused (409) when stale. */
  version: z.int(),
  /** The followers a risk stop suspended now (not settings: a PUT neither sends nor changes them). */
  suspensions: z.array(FollowerSuspensionSchema).default([]),
});
export type CopyLink = z.infer<typeof CopyLinkSchema>;

/** Why a source action was not copied to a follower (the preview, the ledger and the status page). */
export const SKIP_REASONS = [
  "followerDisabled",
  "linkDisabled",
  "closeOnly",
  "symbolBlocked",
  "symbolNotAllowed",
  "symbolMissing",
  "volumeBelowMinimum",
  "volumeZero",
  "noStopLossForRisk",
  "tooLate",
  "priceDeviation",
  "equityFloor",
  "dailyLossLimit",
  "pendingOrdersOff",
  "partialClosesOff",
  "notCopied",
  "existingPosition",
  "noConversionRate",
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export const SKIP_REASON_TEXTS: Record<SkipReason, string> = {
  followerDisabled: "The follower is disabled",
  linkDisabled: "The link is disabled",
  closeOnly: "The follower is close-only",
  symbolBlocked: "The symbol is blocked",
  symbolNotAllowed: "The symbol is not among the allowed symbols",
  symbolMissing: "The follower's server has no such symbol",
  volumeBelowMinimum: "The volume is below the minimum",
  volumeZero: "The volume rounds to zero",
  noStopLossForRisk: "Risk percent needs a stop loss on the source",
  tooLate: "The signal is older than the maximum delay",
  priceDeviation: "The follower's price is too far from the source's",
  equityFloor: "The follower's equity is below its floor",
  dailyLossLimit: "The follower reached its daily loss limit",
  pendingOrdersOff: "Pending orders are not copied",
  partialClosesOff: "Partial closes are not copied",
  notCopied: "The source position was not copied to this follower",
  existingPosition: "The position was open before the follower was added",
  noConversionRate: "Risk percent needs a rate from the symbol's profit currency to the follower's currency",
};
