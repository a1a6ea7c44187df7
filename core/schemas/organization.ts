import { z } from "zod";
import { CURRENCY_CODES, isCurrencyCode } from "../currencies.ts";
import { normalizeTimeZone } from "./timeZone.ts";

export const ORGANIZATION_NAME_MAX = 100;

/**
 * An organization's name: the one rule the create form checks first and the API enforces
 * (POST /api/organizations). Trimmed, 1–100 characters, no control characters.
 */
export const OrganizationNameSchema = z
  .string({ error: (issue) => (issue.input === undefined ? "name is required" : "name must be text") })
  .trim()
  .min(1, { error: "Enter a name for the organization." })
  .max(ORGANIZATION_NAME_MAX, { error: `Use at most ${ORGANIZATION_NAME_MAX} characters.` })
  // eslint-disable-next-line no-control-regex -- control characters are what we refuse
  .regex(/^[^\u0000-\u001f\u007f]*$/, { error: "Remove the control characters." });

/** An organization's currency: one of core/currencies.ts, written as its ISO 4217 code. */
export const CurrencySchema = z
  .string({ error: "currency must be text: an ISO 4217 code such as EUR" })
  .trim()
  .refine(isCurrencyCode, {
    error: (issue) => `${JSON.stringify(issue.input)} is not a currency Toolbox offers. Choose one of ${CURRENCY_CODES.join(", ")}.`,
  });

/** The organization's default time zone: an IANA name (Europe/Nicosia, UTC), stored as Intl spells it. */
export const OrganizationTimeZoneSchema = z
  .string({ error: "The time zone must be text: an IANA name such as Europe/London or UTC" })
  .transform((text, ctx) => {
    const zone = normalizeTimeZone(text);
    if (zone === null) {
      ctx.addIssue({ code: "custom", message: `${JSON.stringify(text)} is not a time zone. Use an IANA name such as Europe/London, Asia/Nicosia or UTC.` });
      return z.NEVER;
    }
    return zone;
  });

/** What GET/PATCH /api/organization answer: the current organization's profile. */
export const OrganizationProfileSchema = z.object({
  id: z.guid(),
  name: z.string(),
  currency: z.string().meta({ description: "ISO 4217 code the organization's cross-platform figures are stated in (default USD)" }),
  timeZone: z.string().meta({
    description: "IANA time zone times are shown in for members who have not chosen their own (default UTC)",
  }),
  createdAt: z.iso.datetime(),
  createdBy: z.object({ sub: z.string(), name: z.string().nullable() }).nullable().meta({
    description:
      "The person who created it (their name as the identity provider gave it; not their e-mail, which only those who manage members see); null for organizations made before this was kept",
  }),
});
export type OrganizationProfile = z.infer<typeof OrganizationProfileSchema>;

/** PATCH /api/organization (administrators): what to change; at least one field. */
export const OrganizationProfileInputSchema = z
  .strictObject(
    { name: OrganizationNameSchema.optional(), currency: CurrencySchema.optional(), timeZone: OrganizationTimeZoneSchema.optional() },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `Only the name, currency and time zone can be changed here, not ${issue.keys.join(", ")}.`
          : 'The body must be a JSON object such as {"name": "Acme Brokers", "currency": "EUR", "timeZone": "Europe/London"}',
    },
  )
  .refine((v) => v.name !== undefined || v.currency !== undefined || v.timeZone !== undefined, {
    error: "Give the name, the currency or the time zone to change.",
  });
export type OrganizationProfileInput = z.infer<typeof OrganizationProfileInputSchema>;
/** What the form sends (before the API checks the currency against the list). */
export type OrganizationProfileBody = z.input<typeof OrganizationProfileInputSchema>;
