import { boolean, integer, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { organizations } from "./organizations.ts";

/**
 * An organization's sign-in policy (docs/security.md "Organization security policy", decision
 * 0051), enforced by the API guard on every request in the organization. No row = no policy:
 * any address, the provider's session lifetime, two-factor optional. A change is announced on
 * the access channel (migration trigger), so every node's guard applies it at once.
 */
export const organizationSecurity = pgTable("organization_security", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  /** Members must have signed in with a second factor (`amr` with otp, mfa, hwk or swk). */
  requireTwoFactor: boolean("require_two_factor").notNull().default(false),
  /** Longest a sign-in (`auth_time`) is accepted here, in seconds; null = the provider's own lifetime. */
  sessionLifetimeSeconds: integer("session_lifetime_seconds"),
  /** Normalized CIDR ranges (IPv4 and IPv6); empty = any address. */
  allowedIpRanges: text("allowed_ip_ranges").array().notNull().default([]),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  updatedBy: text("updated_by"),
});
