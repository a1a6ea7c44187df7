/**
 * An organization's sign-in policy (docs/security.md "Organization security policy", decision
 * 0051): the rules the API guard enforces and the settings screen validates, in one place.
 */
import ipaddr from "ipaddr.js";

/** RFC 8176 `amr` values that mean a second factor was used (one-time code, multi-factor, a key). */
export const SECOND_FACTOR_METHODS = ["otp", "mfa", "hwk", "swk"] as const;

/** Whether a sign-in's `amr` shows a second factor. */
export function signedInWithSecondFactor(amr: readonly string[] | undefined): boolean {
  return (amr ?? []).some((m) => (SECOND_FACTOR_METHODS as readonly string[]).includes(m));
}

const HOUR = 3600;
const DAY = 24 * HOUR;
/** Shortest session lifetime an organization may set. */
export const SESSION_LIFETIME_MIN_SECONDS = 1 * HOUR;
/**
 * Longest: the embedded provider's refresh token lifetime (server/idp/provider.ts TTL.RefreshToken;
 * a test keeps the two equal). Longer would never take effect: the sign-in ends there anyway.
 */
export const SESSION_LIFETIME_MAX_SECONDS = 14 * DAY;

/** How many ranges one organization may list. */
export const ALLOWED_IP_RANGES_MAX = 100;

export type ParsedRange = { ok: true; range: string } | { ok: false; message: string };

/**
 * One line of the allow-list: a CIDR range (`203.0.113.0/24`, `2001:db8::/32`) or a single address
 * (taken as /32 or /128). Returns the range in its normal form: the network address, lower-case.
 */
export function parseIpRange(input: string): ParsedRange {
  const text = input.trim();
  if (text === "") return { ok: false, message: "Write a range such as 203.0.113.0/24 or 2001:db8::/32." };
  try {
    const [address, bits] = text.includes("/") ? ipaddr.parseCIDR(text) : ((a) => [a, a.kind() === "ipv4" ? 32 : 128] as const)(ipaddr.parse(text));
    if (address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
      return { ok: false, message: `"${text}" is an IPv4 address written as IPv6: write it as IPv4 (e.g. 203.0.113.0/24).` };
    }
    const network =
      address.kind() === "ipv4"
        ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${bits}`)
        : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${bits}`);
    return { ok: true, range: `${network.toString()}/${bits}` };
  } catch {
    return { ok: false, message: `"${text.slice(0, 60)}" is not an IP range: write one such as 203.0.113.0/24 or 2001:db8::/32.` };
  }
}

/** The address as the guard compares it: IPv4-mapped IPv6 (`::ffff:203.0.113.9`) becomes IPv4. */
export function normalizeAddress(address: string): string | null {
  try {
    return ipaddr.process(address.trim()).toString();
  } catch {
    return null;
  }
}

/** Whether `address` is in one of `ranges` (normal CIDR forms). An empty list allows every address. */
export function addressAllowed(address: string, ranges: readonly string[]): boolean {
  if (ranges.length === 0) return true;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address.trim());
  } catch {
    return false;
  }
  return ranges.some((r) => {
    try {
      const range = ipaddr.parseCIDR(r);
      return range[0].kind() === parsed.kind() && parsed.match(range);
    } catch {
      return false;
    }
  });
}

/** What the guard enforces in one organization. */
export interface SecurityPolicy {
  requireTwoFactor: boolean;
  /** null: the identity provider's own lifetime. */
  sessionLifetimeSeconds: number | null;
  /** Normal CIDR forms; empty: any address. */
  allowedIpRanges: readonly string[];
}

/** No policy saved. */
export const NO_POLICY: SecurityPolicy = Object.freeze({ requireTwoFactor: false, sessionLifetimeSeconds: null, allowedIpRanges: Object.freeze([]) });
