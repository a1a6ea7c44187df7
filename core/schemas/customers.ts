/**
 * The customers endpoints' contract, written once: the API validates with these, the OpenAPI
 * document shows them, the app infers its types from them (docs/customers.md).
 */
import { z } from "zod";
import { MoneySchema } from "./accountViews.ts";
import { blankToUndefined, optionalQuery, pagingQuery } from "./query.ts";

export const CUSTOMER_KINDS = ["person", "company"] as const;
export const CUSTOMER_STATUSES = ["lead", "active", "blocked"] as const;
export const KYC_STATES = ["notStarted", "pending", "verified", "rejected"] as const;
export const CUSTOMER_SORT_FIELDS = ["name", "email", "country", "status", "kyc", "createdAt", "updatedAt"] as const;
export type CustomerSortField = (typeof CUSTOMER_SORT_FIELDS)[number];
export const CUSTOMER_PAGE_LIMIT_MAX = 500;
export const CUSTOMER_TAGS_MAX = 20;

export const KYC_LABELS: Record<(typeof KYC_STATES)[number], string> = {
  notStarted: "Not started",
  pending: "Pending",
  verified: "Verified",
  rejected: "Rejected",
};

const regionNames = new Intl.DisplayNames(["en"], { type: "region" });
/** Region codes Intl knows that are not countries. */
const NOT_COUNTRIES = new Set(["EU", "EZ", "UN", "ZZ", "QO", "XA", "XB", "XK"]);
/** An ISO 3166-1 alpha-2 country code ("FR"), as Intl names it. */
export function isCountryCode(code: string): boolean {
  if (!/^[A-Z]{2}$/.test(code) || NOT_COUNTRIES.has(code)) return false;
  const name = regionNames.of(code);
  return name !== undefined && name !== code && name !== "Unknown Region";
}
export function countryName(code: string): string {
  return code ? (regionNames.of(code) ?? code) : "";
}

let countries: { code: string; name: string }[] | undefined;
/** Every ISO 3166-1 alpha-2 country Intl knows, with its English name, by name. */
export function countryList(): readonly { code: string; name: string }[] {
  if (!countries) {
    const all: { code: string; name: string }[] = [];
    for (let a = 65; a <= 90; a++)
      for (let b = 65; b <= 90; b++) {
        const code = String.fromCharCode(a, b);
        if (isCountryCode(code)) all.push({ code, name: countryName(code) });
      }
    countries = all.sort((x, y) => x.name.localeCompare(y.name, "en"));
  }
  return countries;
}

/** How the country picker writes a country: "Sweden (SE)". */
export const countryLabel = (code: string) => (code ? `${countryName(code)} (${code})` : "");

/**
 * The country code a person typed in the picker: a code ("se"), a name in any case ("sweden"), or
 * the picker's own "Sweden (SE)". Anything else comes back as typed, for the schema to refuse.
 */
export function countryFromText(text: string): string {
  const typed = text.trim();
  if (typed === "") return "";
  const labelled = /\(([A-Za-z]{2})\)$/.exec(typed);
  if (labelled && isCountryCode(labelled[1]!.toUpperCase())) return labelled[1]!.toUpperCase();
  if (isCountryCode(typed.toUpperCase())) return typed.toUpperCase();
  const byName = countryList().find((c) => c.name.localeCompare(typed, "en", { sensitivity: "base" }) === 0);
  return byName?.code ?? typed;
}

const text = (field: string, max: number) =>
  z
    .string({ error: `${field} must be text` })
    .trim()
    .max(max, { error: `${field} is at most ${max} characters` });

export const CountrySchema = z
  .string({ error: "country must be text" })
  .trim()
  .transform((c) => c.toUpperCase())
  .refine((c) => c === "" || isCountryCode(c), { error: "country must be an ISO 3166-1 two-letter code such as FR or US" });

export const EmailSchema = z
  .string({ error: "email must be text" })
  .trim()
  .toLowerCase()
  .max(254, { error: "email is at most 254 characters" })
  .refine((e) => e === "" || z.email().safeParse(e).success, { error: "email must be an e-mail address such as anna@example.com" });

/**
 * Tags in one text, as the form and the CSV file write them: separated by `;` (a comma is read as
 * a separator too, so "vip, b2b" and "vip;b2b" are the same two tags). A tag holds neither.
 */
export const TAG_SEPARATOR = ";";
export function splitTags(text: string): string[] {
  return text
    .split(/[;,]/)
    .map((t) => t.trim())
    .filter(Boolean);
}
export const joinTags = (tags: readonly string[]) => tags.join(`${TAG_SEPARATOR} `);

export const TagSchema = z
  .string()
  .trim()
  .min(1, { error: "a tag cannot be empty" })
  .max(40, { error: "a tag is at most 40 characters" })
  .regex(/^[^,;]+$/, { error: "a tag cannot hold a comma or a semicolon" });

export const CustomerFieldsSchema = z.object({
  kind: z.enum(CUSTOMER_KINDS, { error: "kind must be person or company" }),
  name: text("name", 200).min(1, { error: "name is required" }),
  email: EmailSchema.default(""),
  phone: text("phone", 40)
    .regex(/^[+0-9 ()./-]*$/, { error: "phone may hold digits, spaces and + ( ) . / - only" })
    .default(""),
  country: CountrySchema.default(""),
  status: z.enum(CUSTOMER_STATUSES, { error: "status must be lead, active or blocked" }).default("lead"),
  kyc: z.enum(KYC_STATES, { error: `kyc must be one of: ${KYC_STATES.join(", ")}` }).default("notStarted"),
  tags: z
    .array(TagSchema)
    .max(CUSTOMER_TAGS_MAX, { error: `at most ${CUSTOMER_TAGS_MAX} tags` })
    .transform((tags) => [...new Set(tags)])
    .default([]),
  ownerSub: z.string().trim().min(1).max(200).nullable().default(null).meta({ description: "The owning member's sub; null for nobody" }),
});
export const CreateCustomerSchema = CustomerFieldsSchema;
export type CreateCustomer = z.input<typeof CreateCustomerSchema>;

export const PatchCustomerSchema = CustomerFieldsSchema.partial().extend({
  version: z.number({ error: "version must be the version you read" }).int().min(1).meta({
    description: "The version the edit starts from; another change since answers 409",
  }),
});

export const CustomerSchema = z.object({
  id: z.guid(),
  kind: z.enum(CUSTOMER_KINDS),
  name: z.string(),
  email: z.string(),
  phone: z.string(),
  country: z.string(),
  status: z.enum(CUSTOMER_STATUSES),
  kyc: z.enum(KYC_STATES),
  tags: z.array(z.string()),
  ownerSub: z.string().nullable(),
  ownerName: z.string().nullable(),
  accountCount: z.number().int(),
  version: z.number().int(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type Customer = z.infer<typeof CustomerSchema>;

/** A member who can own customers (GET /api/customers/owners: the owner picker and filter). */
export const CustomerOwnerSchema = z.object({ sub: z.string(), name: z.string().nullable(), email: z.string().nullable() });
export type CustomerOwner = z.infer<typeof CustomerOwnerSchema>;

export const CustomerListSchema = z.object({ items: z.array(CustomerSchema), total: z.number().int() });
export type CustomerPage = z.infer<typeof CustomerListSchema>;

export const LinkedAccountSchema = z.object({
  platformId: z.guid(),
  platformName: z.string(),
  platformType: z.string(),
  login: z.string(),
  name: z.string().nullable(),
  group: z.string().nullable(),
  currency: z.string().nullable(),
  balance: MoneySchema.nullable(),
  equity: MoneySchema.nullable(),
  linkedAt: z.iso.datetime(),
  /**
   * The account no longer exists on its server: the accounts' mirror removed it when a complete
   * sync did not find it there (an account is linked only while the mirror has it). The link stays,
   * for the dealer to see and unlink.
   */
  missing: z.boolean(),
});
export type LinkedAccount = z.infer<typeof LinkedAccountSchema>;

export const CustomerDealSchema = z.object({
  platformId: z.guid(),
  login: z.string(),
  dealId: z.string(),
  time: z.iso.datetime(),
  action: z.enum(["buy", "sell", "balance", "credit"]),
  entry: z.enum(["in", "out"]).nullable(),
  symbol: z.string().nullable(),
  volume: z.string(),
  price: z.number(),
  profit: MoneySchema,
});
export type CustomerDeal = z.infer<typeof CustomerDealSchema>;

export const CustomerDetailSchema = CustomerSchema.extend({
  accounts: z.array(LinkedAccountSchema),
  recentDeals: z.array(CustomerDealSchema).meta({ description: "The linked accounts' latest deals (at most 20), newest first, from the trade history store" }),
});
export type CustomerDetail = z.infer<typeof CustomerDetailSchema>;

export const LinkAccountSchema = z.object({
  platformId: z.guid({ error: "platformId must be a platform id (a UUID)" }),
  login: z
    .string({ error: "login is required" })
    .trim()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, { error: "login must be an account login" }),
});

/** At most this many accounts are asked about at once (GET /api/customers/accountOwners). */
export const ACCOUNT_OWNERS_MAX = 100;
export const AccountOwnersQuerySchema = z.object({
  accounts: z
    .string({ error: "accounts is required: platformId:login pairs separated by commas" })
    .transform((s) => s.split(",").filter(Boolean))
    .pipe(
      z
        .array(
          z
            .string()
            .regex(/^[0-9a-fA-F-]{36}:[A-Za-z0-9._-]{1,64}$/, { error: "accounts must be platformId:login pairs separated by commas" })
            .transform((pair) => ({ platformId: pair.slice(0, 36).toLowerCase(), login: pair.slice(37) })),
        )
        .max(ACCOUNT_OWNERS_MAX, { error: `at most ${ACCOUNT_OWNERS_MAX} accounts at once` }),
    )
    .meta({ description: "The accounts asked about: `platformId:login` pairs separated by commas" }),
});
export const AccountOwnerSchema = z.object({ platformId: z.guid(), login: z.string(), customerId: z.guid(), customerName: z.string() });
export type AccountOwner = z.infer<typeof AccountOwnerSchema>;

export const NoteSchema = z.object({
  id: z.guid(),
  authorSub: z.string(),
  authorName: z.string().nullable(),
  text: z.string(),
  createdAt: z.iso.datetime(),
});
export type CustomerNote = z.infer<typeof NoteSchema>;
export const AddNoteSchema = z.object({ text: text("text", 5000).min(1, { error: "a note cannot be empty" }) });

const enumList = <T extends readonly [string, ...string[]]>(name: string, values: T) =>
  optionalQuery(
    z
      .string()
      .transform((s) => s.split(",").filter(Boolean))
      .pipe(z.array(z.enum(values, { error: `${name} must be one or more of: ${values.join(", ")}` }))),
  );

export const ListCustomersQuerySchema = z.object({
  q: optionalQuery(text("q", 200).meta({ description: "Part of the name or e-mail, any case" })),
  status: enumList("status", CUSTOMER_STATUSES),
  kyc: enumList("kyc", KYC_STATES),
  tag: optionalQuery(TagSchema),
  country: optionalQuery(CountrySchema),
  owner: optionalQuery(z.string().trim().max(200).meta({ description: "An owner's sub, or `none` for customers nobody owns" })),
  sort: z.preprocess(
    blankToUndefined,
    z.enum(CUSTOMER_SORT_FIELDS, { error: `sort must name a column to sort by: one of ${CUSTOMER_SORT_FIELDS.join(", ")}` }).default("name"),
  ),
  dir: z.preprocess(blankToUndefined, z.enum(["asc", "desc"], { error: "dir must be asc (ascending) or desc (descending)" }).default("asc")),
  ...pagingQuery(CUSTOMER_PAGE_LIMIT_MAX),
});
export type ListCustomersQuery = z.infer<typeof ListCustomersQuerySchema>;

/** The CSV file's columns, in order: export writes them, import reads them (by header name). */
export const CUSTOMER_CSV_COLUMNS = ["kind", "name", "email", "phone", "country", "status", "kyc", "tags", "owner"] as const;
export const CUSTOMER_IMPORT_MAX_ROWS = 100_000;

export const ImportCustomersSchema = z.object({
  csv: z.string({ error: "csv must be the file's text" }).min(1, { error: "the file is empty" }),
  mode: z.enum(["all", "validOnly"], { error: "mode must be all or validOnly" }).default("all").meta({
    description: "all: nothing is written unless every row is valid; validOnly: the valid rows are written, the others reported",
  }),
  dryRun: z.boolean().default(false).meta({ description: "Only validate: report, write nothing" }),
  existing: z.enum(["skip", "update"], { error: "existing must be skip or update" }).default("skip").meta({
    description:
      "What a row whose e-mail an existing customer has does: skip (the customer stays as it is) or update (the file's columns replace the customer's)",
  }),
});

export const ImportReportSchema = z.object({
  rows: z.number().int(),
  valid: z.number().int(),
  imported: z.number().int().meta({ description: "Customers written: created plus updated (0 on a dry run)" }),
  existing: z.number().int().meta({ description: "Valid rows whose e-mail an existing customer of the organization has" }),
  updated: z.number().int().meta({ description: "Existing customers updated (existing: update)" }),
  skipped: z.number().int().meta({ description: "Rows left out because their customer exists (existing: skip)" }),
  errors: z.array(z.object({ line: z.number().int(), field: z.string(), message: z.string() })),
});
export type ImportReport = z.infer<typeof ImportReportSchema>;
