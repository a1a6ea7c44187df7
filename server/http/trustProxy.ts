import net from "node:net";
import ipaddr from "ipaddr.js";

/**
 * TRUST_PROXY (docs/configuration.md, docs/security.md "The address behind proxies"): which
 * `X-Forwarded-For` hops Fastify believes for `request.ip`, which rate limits, audit rows and
 * organizations' allowed IP ranges rely on. Trusting every hop lets any client name its own
 * address, so what amounts to it is refused at start, not only the word "everything":
 *  - a hop count above MAX_PROXY_HOPS (a count larger than the real chain trusts what the client
 *    wrote in front of it);
 *  - a block wider than /8 (IPv4) or /24 (IPv6): `0.0.0.0/0`, `::/0` and the like. No proxy fleet
 *    is that large (a CDN's widest IPv6 block is a /29); an IPv4-mapped IPv6 block
 *    (`::ffff:0:0/96`) counts as the IPv4 block it maps.
 */
export const MAX_PROXY_HOPS = 5;
const MIN_IPV4_PREFIX = 8;
const MIN_IPV6_PREFIX = 24;

export type TrustProxy = false | number | string;

export class TrustProxyRefused extends Error {}

/** The value for Fastify's `trustProxy`, or TrustProxyRefused saying what is wrong. */
export function parseTrustProxy(text: string): TrustProxy {
  const v = text.trim();
  if (v === "false" || v === "0") return false;
  if (v === "true") return 1;
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops > MAX_PROXY_HOPS)
      throw new TrustProxyRefused(
        `TRUST_PROXY: ${hops} proxy hops is more than any real chain (at most ${MAX_PROXY_HOPS}); a count larger than the chain trusts addresses the client wrote. List the proxies' addresses instead.`,
      );
    return hops;
  }
  const entries = v.split(",").map((e) => e.trim());
  if (entries.length === 0 || entries.some((e) => e === "")) throw new TrustProxyRefused(SHAPE);
  for (const entry of entries) {
    const problem = entryProblem(entry);
    if (problem) throw new TrustProxyRefused(problem);
  }
  return entries.join(",");
}

const SHAPE = 'TRUST_PROXY must be "false", "true" (one proxy), a number of proxy hops, or a comma-separated list of proxy addresses or CIDR blocks';

function entryProblem(entry: string): string | null {
  const [text, bits, ...rest] = entry.split("/");
  const family = net.isIP(text!);
  if (!family || rest.length > 0 || (bits !== undefined && (!/^\d{1,3}$/.test(bits) || Number(bits) > (family === 4 ? 32 : 128))))
    return `${SHAPE}; "${entry}" is none of these`;
  if (bits === undefined) return null;
  let address = ipaddr.parse(text!);
  let prefix = Number(bits);
  if (address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress() && prefix >= 96) {
    address = (address as ipaddr.IPv6).toIPv4Address();
    prefix -= 96;
  }
  const min = address.kind() === "ipv4" ? MIN_IPV4_PREFIX : MIN_IPV6_PREFIX;
  if (prefix < min)
    return `TRUST_PROXY: "${entry}" trusts far more than your proxies (a block must be /${MIN_IPV4_PREFIX} or narrower for IPv4, /${MIN_IPV6_PREFIX} for IPv6); trusting every hop would let any client choose its own address.`;
  return null;
}
