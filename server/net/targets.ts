/**
 * Where Toolbox may send requests that someone in an organization chose the address of (webhooks,
 * the Telegram Bot API): never loopback, link-local (cloud metadata at 169.254.169.254 among them),
 * private, shared, multicast, unspecified or reserved addresses, unless the operator names them in
 * TOOLBOX_ALLOWED_TARGETS (hosts, addresses or CIDR blocks, comma-separated). The check runs on
 * every address a name resolves to, at connect time (`lookup` below), so a name that resolves to
 * a public address when saved and to a private one later (DNS rebinding) is still refused.
 */
import dns from "node:dns";
import net from "node:net";
import type { LookupFunction } from "node:net";

const BLOCKED = new net.BlockList();
for (const [address, prefix] of [
  ["0.0.0.0", 8], // "this network", unspecified
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const)
  BLOCKED.addSubnet(address, prefix, "ipv4");
for (const [address, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
  ["64:ff9b::", 96], // NAT64 of any IPv4 address, private ones included
  ["2001:db8::", 32],
  ["fd00:ec2::254", 128], // AWS metadata over IPv6
] as const)
  BLOCKED.addSubnet(address, prefix, "ipv6");

export class TargetRefused extends Error {}

export interface TargetPolicy {
  /** Hosts (lower case) the operator allows whatever they resolve to. */
  hosts: Set<string>;
  /** Addresses and blocks the operator allows. */
  allowed: net.BlockList;
  /** The allow-list as configured, for messages. */
  text: string;
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
  return { hosts, allowed, text: text ?? "" };
}

function familyOf(address: string): "ipv4" | "ipv6" {
  return net.isIP(address) === 6 ? "ipv6" : "ipv4";
}

/** An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as IPv4. */
function unmapped(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1]! : address;
}

/** Why this resolved address may not be reached, or null. */
export function addressProblem(policy: TargetPolicy, host: string, address: string): string | null {
  const ip = unmapped(address);
  if (policy.hosts.has(host.toLowerCase().replace(/\.$/, ""))) return null;
  if (policy.allowed.check(ip, familyOf(ip))) return null;
  if (BLOCKED.check(ip, familyOf(ip)))
    return `${host} resolves to ${ip}, a private, loopback, link-local or reserved address; Toolbox does not send there unless TOOLBOX_ALLOWED_TARGETS allows it`;
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
    return `${host} is this machine; Toolbox does not send there unless TOOLBOX_ALLOWED_TARGETS allows it`;
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
