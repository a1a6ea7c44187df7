/**
 * The requests of the trading accounts endpoints (/api/accounts…), written once: the API route
 * validates with them (server/modules/accounts/routes.ts), the OpenAPI document is generated from
 * them, and the app's forms (app/features/accounts/actions/) check fields with the same schemas
 * and limits before sending. Answers are in ./accountViews.ts, money in ./balanceOperations.ts.
 */
import { z } from "zod";
import { MAX_LEVERAGE, MIN_LEVERAGE, passwordProblem } from "../trading/account.ts";
import { MAX_COMMENT_LENGTH } from "../trading/balance.ts";
import { JOURNAL_LEVELS } from "../trading/journal.ts";
import { blankToUndefined, optionalQuery } from "./query.ts";

/**
 * A group's name: MetaTrader 5 keeps at most 64 characters (MT4 16, Match-Trader less), so 64 is
 * the most any platform could hold (docs/decisions/0029-one-contract-per-accounts-endpoint.md).
 */
export const GROUP_NAME_MAX = 64;
export const ACCOUNT_NAME_MAX = 128;
export const EMAIL_MAX = 200;
export const LOGIN_PATTERN = /^[A-Za-z0-9._-]{1,32}$/;

/** Trimmed text within a length, without control characters. */
export const text = (name: string, max: number) =>
  z
    .string({ error: `${name} must be text` })
    .trim()
    .max(max, { error: `${name} is at most ${max} characters` })
    // eslint-disable-next-line no-control-regex -- control characters are what we refuse
    .regex(/^[^\u0000-\u001f\u007f]*$/, { error: `${name} cannot contain control characters` });

export const LoginSchema = z.string().regex(LOGIN_PATTERN, { error: "A login is 1 to 32 letters or digits" });

export const AccountParamsSchema = z.object({
  platformId: z.guid({ error: "The platform id must be a UUID" }),
  login: LoginSchema,
});

export const GroupNameSchema = text("group", GROUP_NAME_MAX).min(1, { error: "Choose a group" });
export const AccountNameSchema = text("name", ACCOUNT_NAME_MAX).min(1, { error: "Enter the client's name" });
export const EmailSchema = z.union([z.literal(""), z.email({ error: "email must be an e-mail address" }).max(EMAIL_MAX)]);

export const LeverageSchema = z
  .number({ error: "leverage must be a whole number (100 means 1:100)" })
  .int({ error: "leverage must be a whole number (100 means 1:100)" })
  .min(MIN_LEVERAGE, { error: `leverage must be from ${MIN_LEVERAGE} to ${MAX_LEVERAGE}` })
  .max(MAX_LEVERAGE, { error: `leverage must be from ${MIN_LEVERAGE} to ${MAX_LEVERAGE}` });

/** MetaTrader 5's rule, the strictest of the platforms (core/trading/account.ts). */
export const PasswordSchema = z.string({ error: "password is required" }).superRefine((value, ctx) => {
  const problem = passwordProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

export const PHONE_MAX = 64;
export const COUNTRY_MAX = 64;
export const PhoneSchema = text("phone", PHONE_MAX);
export const CountrySchema = text("country", COUNTRY_MAX);

export const CreateAccountSchema = z.object(
  {
    platformId: z.guid({ error: "platformId must be a platform id (a UUID)" }),
    login: LoginSchema.optional().meta({ description: "Requested login; the platform picks the next free one when absent" }),
    group: GroupNameSchema,
    name: AccountNameSchema,
    email: EmailSchema.optional(),
    phone: PhoneSchema.optional(),
    country: CountrySchema.optional(),
    city: text("city", 64).optional(),
    address: text("address", 200).optional(),
    comment: text("comment", MAX_COMMENT_LENGTH).optional(),
    leverage: LeverageSchema.optional(),
    enabled: z.boolean().optional(),
    readOnly: z.boolean().optional(),
    password: PasswordSchema,
    investorPassword: PasswordSchema.optional(),
  },
  { error: "The body must be a JSON object with platformId, group, name and password" },
);
export type CreateAccountBody = z.infer<typeof CreateAccountSchema>;

export const PatchAccountSchema = z
  .object(
    {
      group: GroupNameSchema.optional(),
      leverage: LeverageSchema.optional(),
      enabled: z.boolean({ error: "enabled must be true or false" }).optional(),
      readOnly: z.boolean({ error: "readOnly must be true or false" }).optional(),
      name: AccountNameSchema.optional(),
      email: EmailSchema.optional(),
      phone: PhoneSchema.optional(),
      country: CountrySchema.optional(),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `Only group, leverage, enabled, readOnly, name, email, phone and country can be changed here, not ${issue.keys.join(", ")}`
          : 'The body must be a JSON object such as {"leverage": 200}',
    },
  )
  .strict()
  .refine((p) => Object.values(p).some((v) => v !== undefined), {
    error: "Nothing to change: send group, leverage, enabled, readOnly, name, email, phone or country",
  });
export type PatchAccountBody = z.infer<typeof PatchAccountSchema>;

export const PASSWORD_KINDS = ["main", "investor"] as const;
export const ResetPasswordSchema = z.object(
  {
    password: PasswordSchema,
    kind: z
      .enum(PASSWORD_KINDS, { error: "kind must be main or investor" })
      .default("main")
      .meta({ description: "main (trading) or investor (read-only) password; main by default" }),
  },
  { error: 'The body must be a JSON object such as {"password": "…"}' },
);
export type ResetPasswordBody = z.infer<typeof ResetPasswordSchema>;

const isoTime = z.iso.datetime({ offset: true, error: "must be a date and time such as 2024-01-31T00:00:00Z" });
const fromNotAfterTo = (q: { from?: string; to?: string }) => !(q.from && q.to) || Date.parse(q.from) <= Date.parse(q.to);
const FROM_AFTER_TO = { error: "from must not be after to", path: ["from"] };

/** Deals: within [from, to], the last 30 days by default. */
export const RangeQuerySchema = z.object({ from: optionalQuery(isoTime), to: optionalQuery(isoTime) }).refine(fromNotAfterTo, FROM_AFTER_TO);
export type RangeQuery = z.infer<typeof RangeQuerySchema>;

export const JournalQuerySchema = z
  .object({
    from: optionalQuery(isoTime),
    to: optionalQuery(isoTime),
    levels: optionalQuery(
      z
        .string()
        .transform((v) =>
          v
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean),
        )
        .pipe(z.array(z.enum(JOURNAL_LEVELS, { error: `levels are comma-separated: ${JOURNAL_LEVELS.join(", ")}` }))),
    ),
    text: optionalQuery(z.string().max(200)),
    limit: z.preprocess(blankToUndefined, z.coerce.number().int().min(1).max(10_000).default(1000)),
  })
  .refine(fromNotAfterTo, FROM_AFTER_TO);
export type JournalQuery = z.infer<typeof JournalQuerySchema>;

/** GET /api/accounts/groups: the groups of one of the organization's platforms. */
export const PlatformGroupsQuerySchema = z.object({ platformId: z.guid({ error: "platformId must be a platform id (a UUID)" }) });
export const PlatformGroupSchema = z.object({
  name: z.string().meta({ description: "The platform's own name, e.g. demo\\retail-usd" }),
  currency: z.string(),
  defaultLeverage: z.number().int(),
});
export type PlatformGroup = z.infer<typeof PlatformGroupSchema>;
