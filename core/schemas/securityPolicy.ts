/**
 * The organization's sign-in policy as the API (GET/PUT /api/organization/security) and the
 * settings screen share it. docs/security.md "Organization security policy".
 */
import { z } from "zod";
import { ALLOWED_IP_RANGES_MAX, parseIpRange, SESSION_LIFETIME_MAX_SECONDS, SESSION_LIFETIME_MIN_SECONDS } from "../securityPolicy.ts";

const hours = (s: number) => `${s / 3600} hours`;

export const SessionLifetimeSchema = z
  .int({ error: "sessionLifetimeSeconds must be a whole number of seconds, or null for the identity provider's own lifetime" })
  .min(SESSION_LIFETIME_MIN_SECONDS, {
    error: `The session lifetime must be at least ${hours(SESSION_LIFETIME_MIN_SECONDS)} (${SESSION_LIFETIME_MIN_SECONDS} seconds).`,
  })
  .max(SESSION_LIFETIME_MAX_SECONDS, {
    error: `The session lifetime can be at most ${SESSION_LIFETIME_MAX_SECONDS / 86400} days (${SESSION_LIFETIME_MAX_SECONDS} seconds), the identity provider's own.`,
  })
  .nullable();

/** Each line is parsed, and answered in its normal form (network address / prefix). */
export const IpRangesSchema = z
  .array(z.string({ error: "Each allowed IP range must be a string such as 203.0.113.0/24" }).max(100), {
    error: "allowedIpRanges must be a list of CIDR ranges",
  })
  .max(ALLOWED_IP_RANGES_MAX, { error: `At most ${ALLOWED_IP_RANGES_MAX} allowed IP ranges.` })
  .transform((lines, ctx) => {
    const ranges: string[] = [];
    lines.forEach((line, i) => {
      const parsed = parseIpRange(line);
      if (parsed.ok) {
        if (!ranges.includes(parsed.range)) ranges.push(parsed.range);
      } else ctx.addIssue({ code: "custom", message: parsed.message, path: [i] });
    });
    return ranges;
  });

export const SecurityPolicyInputSchema = z
  .object(
    {
      requireTwoFactor: z.boolean({ error: "requireTwoFactor must be true or false" }),
      sessionLifetimeSeconds: SessionLifetimeSchema,
      allowedIpRanges: IpRangesSchema,
      confirmExcludingOwnAddress: z
        .boolean()
        .optional()
        .meta({ description: "Must be true to save ranges that do not include the caller's own address (else 409)" }),
    },
    { error: 'The body must be a JSON object such as {"requireTwoFactor": false, "sessionLifetimeSeconds": null, "allowedIpRanges": []}' },
  )
  .strict();
export type SecurityPolicyInput = z.input<typeof SecurityPolicyInputSchema>;

export const SecurityPolicySchema = z.object({
  requireTwoFactor: z.boolean(),
  sessionLifetimeSeconds: z
    .int()
    .nullable()
    .meta({ description: "Longest a sign-in is accepted in this organization; null: the identity provider's lifetime" }),
  allowedIpRanges: z.array(z.string()).meta({ description: "CIDR ranges the API accepts calls from; empty: any address" }),
  yourAddress: z.string().meta({ description: "The caller's address as the API sees it (behind proxies: TRUST_PROXY)" }),
  yourAddressAllowed: z.boolean(),
  signedInWithSecondFactor: z.boolean().meta({ description: "The caller's sign-in used a second factor (amr)" }),
  bounds: z.object({ minSessionLifetimeSeconds: z.int(), maxSessionLifetimeSeconds: z.int() }),
  updatedAt: z.iso.datetime().nullable(),
});
export type SecurityPolicyView = z.infer<typeof SecurityPolicySchema>;
