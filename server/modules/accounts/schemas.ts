import { TRADE_PLATFORM_TYPES } from "../../../core/trading/platform.ts";
import { z } from "zod";
import { ACCOUNT_PAGE_LIMIT_MAX, ACCOUNT_SORT_FIELDS, AMOUNT_FILTER_PATTERN } from "../../../core/schemas/accountList.ts";
import { BALANCE_OPERATION_TYPES, JOURNAL_LEVELS, MAX_LEVERAGE, MIN_LEVERAGE, passwordProblem } from "../../../core/trading/index.ts";
import { MAX_COMMENT_LENGTH } from "../../connectors/wire/requests.ts";

export { ACCOUNT_SORT_FIELDS, type AccountSortField } from "../../../core/schemas/accountList.ts";

/** Query strings send empty fields for cleared filters: those mean "no filter". */
const blankToUndefined = (value: unknown) => (typeof value === "string" && value.trim() === "" ? undefined : value);
const optionalQuery = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema.optional());

/** Decimal amounts with at most two decimals ("1000", "1250.50"), as money travels in this API. */
const DECIMAL = AMOUNT_FILTER_PATTERN;
const amountFilter = (name: string) =>
  optionalQuery(z.string().trim().regex(DECIMAL, { error: `${name} must be an amount such as 1000 or 1250.50` }));

const LOGIN = /^[A-Za-z0-9._-]{1,32}$/;
export const LoginSchema = z
  .string()
  .regex(LOGIN, { error: "A login is 1 to 32 letters or digits" });

export const ListAccountsQuerySchema = z
  .object({
    platformId: optionalQuery(z.guid({ error: "platformId must be a platform id (a UUID)" })),
    login: optionalQuery(
      z
        .string()
        .trim()
        .regex(/^[A-Za-z0-9._-]{1,32}\*?$/, { error: "login must be a login (exact) or the start of one followed by * (e.g. 1002*)" }),
    ),
    groupMask: optionalQuery(
      z.string().trim().max(500, { error: "groupMask is at most 500 characters" }).meta({
        description: "Group mask as on the platforms: comma-separated, `*` any characters, a leading `!` excludes (e.g. `real*,!*test*`)",
      }),
    ),
    name: optionalQuery(z.string().trim().max(200, { error: "name is at most 200 characters" })),
    email: optionalQuery(z.string().trim().max(200, { error: "email is at most 200 characters" })),
    balanceMin: amountFilter("balanceMin"),
    balanceMax: amountFilter("balanceMax"),
    equityMin: amountFilter("equityMin"),
    equityMax: amountFilter("equityMax"),
    sort: z.preprocess(blankToUndefined, z.enum(ACCOUNT_SORT_FIELDS, { error: `sort must be one of: ${ACCOUNT_SORT_FIELDS.join(", ")}` }).default("login")),
    dir: z.preprocess(blankToUndefined, z.enum(["asc", "desc"], { error: "dir must be asc or desc" }).default("asc")),
    offset: z.preprocess(
      blankToUndefined,
      z.coerce.number({ error: "offset must be a whole number" }).int({ error: "offset must be a whole number" }).min(0, { error: "offset cannot be negative" }).max(10_000_000).default(0),
    ),
    limit: z.preprocess(
      blankToUndefined,
      z.coerce
        .number({ error: "limit must be a whole number" })
        .int({ error: "limit must be a whole number" })
        .min(1, { error: `limit must be from 1 to ${ACCOUNT_PAGE_LIMIT_MAX}` })
        .max(ACCOUNT_PAGE_LIMIT_MAX, { error: `limit must be from 1 to ${ACCOUNT_PAGE_LIMIT_MAX}` })
        .default(100),
    ),
  })
  .refine((q) => !(q.balanceMin && q.balanceMax) || Number(q.balanceMin) <= Number(q.balanceMax), {
    error: "balanceMin must not be greater than balanceMax",
    path: ["balanceMin"],
  })
  .refine((q) => !(q.equityMin && q.equityMax) || Number(q.equityMin) <= Number(q.equityMax), {
    error: "equityMin must not be greater than equityMax",
    path: ["equityMin"],
  });
export type ListAccountsQuery = z.infer<typeof ListAccountsQuerySchema>;

const money = z.string().meta({ description: "Decimal amount in the account currency, e.g. \"1250.50\"" });

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
  marginLevel: z.string().nullable().meta({ description: "Equity / margin in percent (\"253.40\"); null while no margin is used" }),
  marginState: z.enum(["ok", "marginCall", "stopOut"]),
  enabled: z.boolean(),
  readOnly: z.boolean(),
  registration: z.iso.datetime(),
  lastAccess: z.iso.datetime().nullable(),
});
export type AccountRow = z.infer<typeof AccountRowSchema>;

export const AccountListSchema = z.object({ items: z.array(AccountRowSchema), total: z.number().int() });

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

export const AccountParamsSchema = z.object({
  platformId: z.guid({ error: "The platform id must be a UUID" }),
  login: LoginSchema,
});

const isoTime = z.iso.datetime({ offset: true, error: "must be a date and time such as 2024-01-31T00:00:00Z" });
export const RangeQuerySchema = z
  .object({ from: optionalQuery(isoTime), to: optionalQuery(isoTime) })
  .refine((q) => !(q.from && q.to) || Date.parse(q.from) <= Date.parse(q.to), {
    error: "from must not be after to",
    path: ["from"],
  });

export const JournalQuerySchema = z
  .object({
    from: optionalQuery(isoTime),
    to: optionalQuery(isoTime),
    levels: optionalQuery(
      z
        .string()
        .transform((v) => v.split(",").map((s) => s.trim()).filter(Boolean))
        .pipe(z.array(z.enum(JOURNAL_LEVELS, { error: `levels are comma-separated: ${JOURNAL_LEVELS.join(", ")}` }))),
    ),
    text: optionalQuery(z.string().max(200)),
    limit: z.preprocess(blankToUndefined, z.coerce.number().int().min(1).max(10_000).default(1000)),
  })
  .refine((q) => !(q.from && q.to) || Date.parse(q.from) <= Date.parse(q.to), {
    error: "from must not be after to",
    path: ["from"],
  });

const side = z.enum(["buy", "sell"]);
const reason = z.string();
const lots = z.string().meta({ description: "Volume in lots, e.g. \"0.1\"" });

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
  reason,
  native: z.record(z.string(), z.unknown()).meta({ description: "The platform's own ids (MT4 ticket, MT5 position, Match-Trader UUID)" }),
});

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
  reason,
  native: z.record(z.string(), z.unknown()),
});

export const JournalEntrySchema = z.object({
  id: z.string(),
  time: z.iso.datetime(),
  level: z.enum(JOURNAL_LEVELS),
  sourceIp: z.string().nullable(),
  login: z.string().nullable(),
  message: z.string(),
});

const text = (name: string, max: number) =>
  z
    .string({ error: `${name} must be text` })
    .trim()
    .max(max, { error: `${name} is at most ${max} characters` })
    // eslint-disable-next-line no-control-regex -- control characters are what we refuse
    .regex(/^[^\u0000-\u001f\u007f]*$/, { error: `${name} cannot contain control characters` });

const leverage = z
  .number({ error: "leverage must be a whole number (100 means 1:100)" })
  .int({ error: "leverage must be a whole number (100 means 1:100)" })
  .min(MIN_LEVERAGE, { error: `leverage must be from ${MIN_LEVERAGE} to ${MAX_LEVERAGE}` })
  .max(MAX_LEVERAGE, { error: `leverage must be from ${MIN_LEVERAGE} to ${MAX_LEVERAGE}` });

const password = z.string({ error: "password is required" }).superRefine((value, ctx) => {
  const problem = passwordProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

const group = text("group", 200).min(1, { error: "Choose a group" });

export const CreateAccountSchema = z.object(
  {
    platformId: z.guid({ error: "platformId must be a platform id (a UUID)" }),
    login: LoginSchema.optional().meta({ description: "Requested login; the platform picks the next free one when absent" }),
    group,
    name: text("name", 128).min(1, { error: "Enter the client's name" }),
    email: z.union([z.literal(""), z.email({ error: "email must be an e-mail address" }).max(200)]).optional(),
    phone: text("phone", 64).optional(),
    country: text("country", 64).optional(),
    city: text("city", 64).optional(),
    address: text("address", 200).optional(),
    comment: text("comment", MAX_COMMENT_LENGTH).optional(),
    leverage: leverage.optional(),
    enabled: z.boolean().optional(),
    readOnly: z.boolean().optional(),
    password,
    investorPassword: password.optional(),
  },
  { error: "The body must be a JSON object with platformId, group, name and password" },
);

export const PatchAccountSchema = z
  .object(
    {
      group: group.optional(),
      leverage: leverage.optional(),
      enabled: z.boolean({ error: "enabled must be true or false" }).optional(),
      readOnly: z.boolean({ error: "readOnly must be true or false" }).optional(),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `Only group, leverage, enabled and readOnly can be changed here, not ${issue.keys.join(", ")}`
          : "The body must be a JSON object such as {\"leverage\": 200}",
    },
  )
  .strict()
  .refine((p) => Object.values(p).some((v) => v !== undefined), {
    error: "Nothing to change: send group, leverage, enabled or readOnly",
  });

export const ResetPasswordSchema = z.object({ password }, { error: "The body must be a JSON object such as {\"password\": \"…\"}" });

/** Amounts: positive, at most two decimals (every account currency here keeps two), below a trillion. */
export const AMOUNT = /^\d{1,12}(\.\d{1,2})?$/;

export const BalanceOperationBodySchema = z.object(
  {
    type: z.enum(BALANCE_OPERATION_TYPES, { error: `type must be one of: ${BALANCE_OPERATION_TYPES.join(", ")}` }),
    amount: z
      .string({ error: "amount must be a decimal string such as \"100.00\"" })
      .trim()
      .regex(AMOUNT, { error: "amount must be a positive amount with at most 2 decimals, such as \"100\" or \"99.95\"" })
      .refine((v) => Number(v) > 0, { error: "amount must be greater than zero" }),
    comment: text("comment", MAX_COMMENT_LENGTH).optional(),
  },
  { error: "The body must be a JSON object such as {\"type\": \"deposit\", \"amount\": \"100.00\"}" },
);
export type BalanceOperationBody = z.infer<typeof BalanceOperationBodySchema>;

export const IdempotencyHeadersSchema = z.looseObject({
  "idempotency-key": z
    .string({ error: "Send an Idempotency-Key header (8 to 200 characters, e.g. a UUID) so a retry never moves money twice" })
    .trim()
    .min(8, { error: "The Idempotency-Key must be 8 to 200 characters" })
    .max(200, { error: "The Idempotency-Key must be 8 to 200 characters" })
    .regex(/^[\x21-\x7e]+$/, { error: "The Idempotency-Key must be visible ASCII characters (a UUID is a good choice)" }),
});

export const BalanceOperationResultSchema = z.object({
  operationId: z.guid(),
  type: z.enum(BALANCE_OPERATION_TYPES),
  amount: money,
  balance: money,
  credit: money,
  at: z.iso.datetime(),
});
export type BalanceOperationAnswer = z.infer<typeof BalanceOperationResultSchema>;
