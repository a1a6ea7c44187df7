/**
 * Where Toolbox may send requests that someone in an organization chose the address of (webhooks,
 * the Telegram Bot API; trade servers through server/connectors/target.ts): only global unicast
 * addresses — never loopback, link-local (cloud metadata at 169.254.169.254 among them), private,
 * shared, multicast, unspecified, reserved or IPv4-in-IPv6 forms of them — unless the operator
 * names them in TOOLBOX_ALLOWED_TARGETS (hosts, addresses or CIDR blocks, comma-separated). The
 * check runs on every address a name resolves to, at connect time (`lookup` below), so a name
 * that resolves to a public address when saved and to a private one later (DNS rebinding) is
 * still refused.
 */
import dns from "node:dns";
import net from "node:net";
import type { LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

/** IANA's global unicast block of IPv6 (2000::/3): everything outside it is not an Internet host. */
const GLOBAL_IPV6 = ipaddr.parseCIDR("2000::/3");

/**
 * The address to judge: an IPv4-mapped IPv6 address (::ffff:10.0.0.1, however written) is its
 * IPv4 address; anything else as it is. null: not an IP address.
 */
function judged(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!ipaddr.isValid(address)) return null;
  const ip = ipaddr.parse(address);
  if (ip.kind() === "ipv6") {
    const { parts } = ip as ipaddr.IPv6;
    // Read the parts, not ipaddr's range: it calls "::127.0.0.1" mapped but "::7f00:1" unicast.
    if (parts.slice(0, 5).every((p) => p === 0) && parts[5] === 0xffff) return ipaddr.fromByteArray((ip as ipaddr.IPv6).toByteArray().slice(12));
  }
  return ip;
}

/**
 * Only global unicast addresses are reachable (ipaddr.js's "unicast" range, which leaves out
 * loopback, private, shared, link-local, multicast, reserved, documentation, benchmarking, 6to4,
 * Teredo and NAT64 blocks), and for IPv6 only inside 2000::/3. An IPv4-compatible IPv6 address
 * (::a.b.c.d, deprecated by RFC 4291) has its first 96 bits zero: ipaddr.js calls ::7f00:1
 * "unicast", so it is refused here by its form, whatever IPv4 address it embeds.
 */
function isGlobalUnicast(ip: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (ip.range() !== "unicast") return false;
  if (ip.kind() === "ipv4") return true;
  const v6 = ip as ipaddr.IPv6;
  if (v6.parts.slice(0, 6).every((p) => p === 0)) return false;
  return v6.match(GLOBAL_IPV6);
}

export class TargetRefused extends Error {}

export interface TargetPolicy {
  /** Hosts (lower case) the operator allows whatever they resolve to. */
  hosts: Set<string>;
  /** Addresses and blocks the operator allows. */
  allowed: net.BlockList;
  /** The allow-list as configured, for messages. */
  text: string;
  /** The variable it came from, for messages. */
  name: string;
}

/**
 * TOOLBOX_ALLOWED_TARGETS: "127.0.0.1, 10.1.0.0/16, hooks.internal". Throws on an entry that is none of these.
 * `name`: the variable the list came from, for messages (trade servers have their own list).
 */
export function parseTargetPolicy(text: string | undefined, name = "TOOLBOX_ALLOWED_TARGETS"): TargetPolicy {
  const hosts = new Set<string>();
  const allowed = new net.BlockList();
  for (const raw of (text ?? "").split(",")) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    const [address, bits] = entry.split("/");
    const family = net.isIP(address!);
    if (family && bits !== undefined) {
      const prefix = Number(bits);
      if (!/^\d{1,3}$/.test(bits) || prefix > (family === 4 ? 32 : 128)) throw new Error(`${name}: "${raw.trim()}" has a bad prefix length`);
      allowed.addSubnet(address!, prefix, family === 4 ? "ipv4" : "ipv6");
    } else if (family) {
      allowed.addAddress(address!, family === 4 ? "ipv4" : "ipv6");
    } else if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(entry)) {
      hosts.add(entry);
    } else {
      throw new Error(`${name}: "${raw.trim()}" is not a host name, an address or a CIDR block`);
    }
  }
  return { hosts, allowed, text: text ?? "", name };
}

/** Why this resolved address may not be reached, or null. */
export function addressProblem(policy: TargetPolicy, host: string, address: string): string | null {
  if (policy.hosts.has(host.toLowerCase().replace(/\.$/, ""))) return null;
  const ip = judged(address);
  if (!ip) return `${host} resolves to ${address}, which is not an IP address`;
  const text = ip.toString();
  if (policy.allowed.check(text, ip.kind())) return null;
  if (!isGlobalUnicast(ip))
    return `${host} resolves to ${text}, a private, loopback, link-local or reserved address; Toolbox does not send there unless ${policy.name} allows it`;
  return null;
}

/** The host of a URL without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "");
}

/**
 * The check when a target is saved: the scheme, and a literal address or "localhost" outright.
 * Names are resolved and checked again at each connection (`guardedLookup`).
 */
export function urlProblem(policy: TargetPolicy, text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "url must be an http:// or https:// address";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "url must be an http:// or https:// address";
  if (url.username || url.password) return "url must not hold a user name or password";
  const host = hostOf(url);
  if (net.isIP(host)) return addressProblem(policy, host, host);
  const lower = host.toLowerCase();
  if ((lower === "localhost" || lower.endsWith(".localhost")) && !policy.hosts.has(lower))
    return `${host} is this machine; Toolbox does not send there unless ${policy.name} allows it`;
  return null;
}

/** A `lookup` for http(s).request that refuses any address the policy does not allow. */
export function guardedLookup(policy: TargetPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const list = addresses;
      for (const a of list) {
        const problem = addressProblem(policy, hostname, a.address);
        if (problem) return callback(new TargetRefused(problem), "", 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(new Error(`${hostname} has no address`), "", 0);
      callback(null, first.address, first.family);
    });
  };
}
