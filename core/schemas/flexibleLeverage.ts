/**
 * The Flexible Leverage API (docs/flexible-leverage.md "API"): a platform's Flexible Leverage
 * plugin's settings read from and saved to its parameters, and the preview of the rules as drafted
 * over the platform's accounts. Shapes shared by the server's routes and the editor.
 */
import { z } from "zod";
import { FlexibleLeverageSettingsSchema, LEVERAGE_MODES } from "../flexibleLeverage/schema.ts";

export const FlexibleLeverageParamsSchema = z.object({
  id: z.guid({ error: "The platform id must be a UUID" }),
  pluginId: z.string({ error: "The plugin id must be text" }).regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}\.(MT4|MT5)Plugin\.FlexibleLeverage$/, {
    error: "The plugin id must be {product}.MT4Plugin.FlexibleLeverage or {product}.MT5Plugin.FlexibleLeverage",
  }),
});

const WarningSchema = z.object({ ruleIndex: z.number().int(), path: z.array(z.union([z.string(), z.number()])), message: z.string() });
const IssueSchema = z.object({ path: z.array(z.union([z.string(), z.number()])), message: z.string() });

export const FlexibleLeverageViewSchema = z.object({
  pluginId: z.string(),
  version: z.string(),
  enabled: z.boolean(),
  platformType: z.enum(["MT4", "MT5"]),
  /** The settings read from the plugin's parameters (empty when they cannot be read: see `unreadable`). */
  settings: FlexibleLeverageSettingsSchema,
  unreadable: z
    .object({ message: z.string(), issues: z.array(IssueSchema) })
    .nullable()
    .meta({
      description: "The plugin's parameters hold rules Toolbox cannot read (written by hand, or by another version): why; saving replaces them",
    }),
  warnings: z.array(WarningSchema).meta({ description: "Masks that match nothing on the server, leverages above a rule's maximum, news windows over" }),
  groups: z.array(z.object({ name: z.string(), currency: z.string(), defaultLeverage: z.number().int() })),
  /** The server's symbols, by MT5 path where they have one ("Forex\\Majors\\EURUSD"). */
  symbols: z.array(z.string()),
  serverClock: z.object({
    /** The server's wall clock now, "2026-12-04T13:30". */
    now: z.string(),
    /** How the windows are read: the platform's IANA zone, or the simulated server's fixed offset ("UTC+02:00"). */
    zone: z.string(),
  }),
  capacity: z.object({
    /** The characters the rules' text may take on this platform (MT4: 31 parameters of 127), null: no limit Toolbox knows. */
    limit: z.number().int().nullable(),
    used: z.number().int(),
  }),
  runBy: z
    .enum(["plugin", "toolbox"])
    .optional()
    .meta({ description: "Who runs the rules: the server's plugin, or Toolbox for a server without the plugin (its rules kept in Toolbox)" }),
});
export type FlexibleLeverageView = z.infer<typeof FlexibleLeverageViewSchema>;

const SERVER_TIME = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):([0-5]\d)$/;

export const FlexibleLeveragePreviewBodySchema = z
  .object({
    settings: FlexibleLeverageSettingsSchema,
    whatIf: z
      .object({
        serverTime: z
          .string({ error: 'The "what if" time must be the server\'s date and time, such as "2026-12-05T10:00"' })
          .regex(SERVER_TIME, { error: 'The "what if" time must be the server\'s date and time, such as "2026-12-05T10:00"' })
          .optional(),
        equity: z
          .number({ error: 'The "what if" equity must be a number' })
          .min(-1e12, { error: 'The "what if" equity is too large' })
          .max(1e12, { error: 'The "what if" equity is too large' })
          .optional()
          .meta({ description: "Every account's equity, in its own currency (50000 = 50,000.00)" }),
      })
      .strict()
      .optional(),
    login: z.string().trim().max(32, { error: "The login search is at most 32 characters" }).optional().meta({ description: "Logins that start with this" }),
    onlyChanged: z.boolean({ error: "onlyChanged must be true or false" }).optional(),
    offset: z.int({ error: "offset must be a whole number" }).min(0, { error: "offset cannot be negative" }).default(0),
    limit: z.int({ error: "limit must be a whole number" }).min(1, { error: "limit is at least 1" }).max(500, { error: "limit is at most 500" }).default(100),
  })
  .strict();
export type FlexibleLeveragePreviewBody = z.input<typeof FlexibleLeveragePreviewBodySchema>;

export const FlexibleLeveragePreviewRowSchema = z.object({
  login: z.string(),
  group: z.string(),
  currency: z.string(),
  /** The equity evaluated, in the account's currency (the "what if" one when given). */
  equity: z.number(),
  currentLeverage: z.number().int(),
  leverage: z.number().int(),
  changed: z.boolean(),
  ruleIndex: z.number().int().nullable(),
  ruleName: z.string().nullable(),
  mode: z.enum(LEVERAGE_MODES).nullable(),
  tierIndex: z.number().int().nullable(),
  windowIndex: z.number().int().nullable(),
  windowKind: z.enum(["weekend", "news"]).nullable(),
  cappedBy: z.enum(["rule", "group"]).nullable(),
  reason: z.string(),
});
export type FlexibleLeveragePreviewRow = z.infer<typeof FlexibleLeveragePreviewRowSchema>;

export const FlexibleLeveragePreviewSchema = z.object({
  /** The server's wall clock evaluated ("2026-12-05T10:00"). */
  at: z.string(),
  whatIf: z.boolean(),
  counts: z.object({
    accounts: z.number().int(),
    matched: z.number().int(),
    unmatched: z.number().int(),
    unknownGroup: z.number().int(),
    changed: z.number().int(),
    raised: z.number().int(),
    lowered: z.number().int(),
    byRule: z.array(z.object({ ruleIndex: z.number().int(), ruleName: z.string(), accounts: z.number().int(), changed: z.number().int() })),
  }),
  /** Rows matching the login search (and onlyChanged), before paging. */
  total: z.number().int(),
  rows: z.array(FlexibleLeveragePreviewRowSchema),
  warnings: z.array(WarningSchema),
  /** What the preview could not know, in words. */
  notes: z.array(z.string()),
});
export type FlexibleLeveragePreview = z.infer<typeof FlexibleLeveragePreviewSchema>;

export const FlexibleLeverageHistorySchema = z.object({
  /** The saves made from Toolbox, newest first (at most 50): each with the settings it wrote, to load back into the editor. */
  entries: z.array(z.object({ at: z.string(), actorName: z.string().nullable(), settings: FlexibleLeverageSettingsSchema })),
});
export type FlexibleLeverageHistory = z.infer<typeof FlexibleLeverageHistorySchema>;

/** One leverage change made by Flexible Leverage (the server's plugin or Toolbox's runner), as the account's detail lists it. */
export const LeverageChangeSchema = z.object({
  id: z.string(),
  /** When it was made, RFC 3339 (the server's instant for the plugin's; the decision's for Toolbox's). */
  at: z.string(),
  from: z.number().int(),
  to: z.number().int(),
  rule: z.string().nullable(),
  /** The ladder's tier (0-based) that decided, or null (a window, or no rule). */
  tier: z.number().int().nullable(),
  window: z.enum(["weekend", "news"]).nullable(),
  reason: z.string(),
  /** Where the engine ran: the server's plugin, or Toolbox's runner. */
  source: z.enum(["plugin", "toolbox"]),
  /** Toolbox's runner: pending (sent or about to be), applied, or failed (with the server's words). */
  status: z.enum(["pending", "applied", "failed"]),
  error: z.string().nullable(),
});
export type LeverageChangeView = z.infer<typeof LeverageChangeSchema>;
