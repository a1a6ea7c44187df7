/**
 * The server configuration editors' API (docs/server-configuration.md): a platform's groups,
 * symbols and holidays with each one's version, a list of staged changes to apply, and the
 * platform's change history. The schemas check shapes and types only; the platforms' rules
 * (core/trading/configRules.ts, core/trading/holiday.ts) answer per change, in their own words.
 */
import { z } from "zod";

export const ConfigParamsSchema = z.object({ id: z.guid({ error: "The platform id must be a UUID" }) });

const VERSION = /^c1-[0-9a-f]{16}$/;
const expected = z
  .string({ error: "Each change needs the version of the object as it was read (expected)" })
  .regex(VERSION, { error: "The expected version is the one the editor read: c1- and 16 hex digits" });
const objectName = z
  .string({ error: "Each change names its object (name)" })
  .min(1, { error: "The object's name must not be empty" })
  .max(128, { error: "An object's name is at most 128 characters" });

const num = (what: string) => z.number({ error: `${what} must be a number` });
const text = (what: string) => z.string({ error: `${what} must be text` });
const bool = (what: string) => z.boolean({ error: `${what} must be true or false` });

/** Fields a group change may carry; a field it does not know reaches the rules, which say why it is refused. */
export const GroupPatchSchema = z.looseObject({
  currency: text("The currency").optional(),
  defaultLeverage: num("The default leverage").optional(),
  marginLevelMode: z.enum(["percent", "money"], { error: "The margin level mode is percent or money" }).optional(),
  marginCall: num("The margin call level").optional(),
  stopOut: num("The stop-out level").optional(),
  marginMode: z.enum(["hedging", "netting"], { error: "The margin mode is hedging or netting" }).optional(),
  hedgingProhibited: bool("Hedging prohibited").optional(),
  fifoClose: bool("FIFO close").optional(),
  maxPositions: num("The maximum of open positions").optional(),
  symbols: text("The allowed symbols").optional(),
  commissionPerLot: num("The commission per lot").optional(),
});

export const SessionSchema = z.object({ day: num("A session's day"), from: num("A session's start"), to: num("A session's end") });

export const SymbolPatchSchema = z.looseObject({
  description: text("The description").optional(),
  class: z.enum(["forex", "metal", "index", "crypto"], { error: "The class is forex, metal, index or crypto" }).optional(),
  path: text("The symbol group").optional(),
  digits: num("Digits").optional(),
  contractSize: num("The contract size").optional(),
  baseCurrency: text("The base currency").optional(),
  profitCurrency: text("The profit currency").optional(),
  executionMode: z.enum(["request", "instant", "market"], { error: "The execution mode is request, instant or market" }).optional(),
  tradeMode: z.enum(["full", "closeOnly", "disabled"], { error: "The trade mode is full, closeOnly or disabled" }).optional(),
  spread: num("The spread").optional(),
  spreadBalance: num("The spread balance").optional(),
  stopsLevel: num("The stops level").optional(),
  freezeLevel: num("The freeze level").optional(),
  swapLong: num("The long swap").optional(),
  swapShort: num("The short swap").optional(),
  volumeMin: num("The minimum volume").optional(),
  volumeMax: num("The maximum volume").optional(),
  volumeStep: num("The volume step").optional(),
  maxLeverage: num("The maximum leverage").nullable().optional(),
  marginInitial: num("The initial margin").optional(),
  marginMaintenance: num("The maintenance margin").optional(),
  marginHedged: num("The hedged margin").optional(),
  sessions: z.array(SessionSchema, { error: "The sessions are a list of trading windows" }).max(100, { error: "At most 100 sessions" }).optional(),
});

export const HolidaySchema = z.object({
  date: text("A holiday's date"),
  from: num("A holiday's trading start"),
  to: num("A holiday's trading end"),
  symbols: text("What a holiday applies to"),
  description: text("A holiday's description"),
  enabled: bool("A holiday's enabled"),
});

export const ConfigChangeSchema = z.discriminatedUnion(
  "kind",
  [
    z.object({ kind: z.literal("group"), name: objectName, expected, patch: GroupPatchSchema }),
    z.object({ kind: z.literal("symbol"), name: objectName, expected, patch: SymbolPatchSchema }),
    z.object({
      kind: z.literal("holidays"),
      expected,
      holidays: z.array(HolidaySchema, { error: "holidays must be the whole list" }).max(1000, { error: "A server holds at most 1000 holidays" }),
    }),
  ],
  { error: "Each change's kind is group, symbol or holidays" },
);

export const ApplyBodySchema = z
  .object({
    changes: z
      .array(ConfigChangeSchema, { error: "changes must be a list" })
      .min(1, { error: "Send at least one change" })
      .max(500, { error: "At most 500 changes at once" }),
  })
  .strict();

export const ConfigItemSchema = z.object({ version: z.string(), object: z.record(z.string(), z.unknown()) });
export const ConfigListSchema = z.object({ platform: z.enum(["MT4", "MT5", "MatchTrader"]), items: z.array(ConfigItemSchema) });
export const HolidayListSchema = z.object({
  platform: z.enum(["MT4", "MT5", "MatchTrader"]),
  /** false where the platform keeps no holidays Toolbox can reach (Match-Trader, the MT5 Web API), `message` saying why. */
  supported: z.boolean(),
  message: z.string().nullable(),
  version: z.string().nullable(),
  holidays: z.array(HolidaySchema),
});

export const ChangeResultSchema = z.object({
  kind: z.enum(["group", "symbol", "holidays"]),
  name: z.string().nullable(),
  /** applied; invalid: a rule refused it (message); changed: the server's object changed since read (current, currentVersion); failed: the platform could not be reached. */
  status: z.enum(["applied", "invalid", "changed", "failed"]),
  message: z.string().nullable(),
  version: z.string().nullable(),
  object: z.unknown().optional(),
  current: z.unknown().optional(),
  currentVersion: z.string().nullable(),
});
export const ApplyResultSchema = z.object({ results: z.array(ChangeResultSchema) });

export const HistoryQuerySchema = z.object({
  kind: z.enum(["group", "symbol", "holidays"], { error: "kind is group, symbol or holidays" }).optional(),
  name: objectName.optional(),
  limit: z.coerce
    .number({ error: "limit must be a number" })
    .int({ error: "limit must be whole" })
    .min(1)
    .max(500, { error: "limit is at most 500" })
    .default(100),
});
export const HistoryEntrySchema = z.object({
  id: z.string(),
  at: z.string(),
  actorName: z.string().nullable(),
  kind: z.enum(["group", "symbol", "holidays"]),
  name: z.string().nullable(),
  before: z.unknown(),
  after: z.unknown(),
  /** The change that undoes this one, to stage against the object's current version: the fields' values before (holidays: the list before). */
  revert: z.unknown(),
});
export const HistorySchema = z.object({ entries: z.array(HistoryEntrySchema) });

export type ConfigChange = z.infer<typeof ConfigChangeSchema>;
export type ChangeResult = z.infer<typeof ChangeResultSchema>;
export type HistoryEntry = z.infer<typeof HistoryEntrySchema>;
export type HistoryQuery = z.infer<typeof HistoryQuerySchema>;
