/**
 * Where a connector may open a connection: a trade server's address is chosen by whoever edits a
 * platform, so before any network call it is checked like an outgoing webhook (server/net/targets.ts):
 * loopback, link-local (cloud metadata among them), private and reserved addresses are refused
 * unless the operator names them in TRADE_SERVER_ALLOWED_TARGETS (hosts, addresses or CIDR
 * blocks, comma-separated; `npm run simulator` and the tests allow 127.0.0.1). Names are resolved
 * and every address checked, and the connection itself resolves through the same check
 * (`guardedLookup`), so a name that later resolves elsewhere (DNS rebinding) is still refused. A
 * refusal is decided before any packet is sent to the target, so its answer is the same whether
 * a port is open there or not.
 */
import dns from "node:dns/promises";
import net from "node:net";
import { addressProblem, guardedLookup, hostOf, parseTargetPolicy, TargetRefused, type TargetPolicy } from "../net/targets.ts";
import { ConnectorError, connectorErrors } from "./errors.ts";

export const TRADE_SERVER_TARGETS_ENV = "TRADE_SERVER_ALLOWED_TARGETS";

export type { TargetPolicy };

/** The allow-list as configured (TRADE_SERVER_ALLOWED_TARGETS); throws on an entry that is not a host, address or CIDR block. */
export function tradeServerTargetPolicy(text: string | undefined): TargetPolicy {
  return parseTargetPolicy(text, TRADE_SERVER_TARGETS_ENV);
}

/** No internal address is reachable: the production default. */
export const NO_INTERNAL_TARGETS: TargetPolicy = tradeServerTargetPolicy("");

export function targetRefused(): ConnectorError {
  return connectorErrors.invalidRequest(
    `Toolbox does not connect to this address: it is a loopback, private, link-local or cloud metadata address. An administrator can allow it with ${TRADE_SERVER_TARGETS_ENV}.`,
  );
}

export function isTargetRefused(error: unknown): boolean {
  return error instanceof TargetRefused || (error as { cause?: unknown } | null)?.cause instanceof TargetRefused;
}

/** Refuses (ConnectorError) a target the policy does not allow; resolves when it may be reached. */
export async function checkTarget(url: URL, policy: TargetPolicy): Promise<void> {
  await checkedAddress(url, policy);
}

/**
 * Checks a target like `checkTarget` and answers the address to connect to (the first the name
 * resolved to, all of them checked), or null for a host the operator allows by name (resolved as
 * usual). For a client that cannot take `targetLookup` (gRPC): it connects to this address, so
 * the name cannot resolve elsewhere in between.
 */
export async function checkedAddress(url: URL, policy: TargetPolicy): Promise<string | null> {
  const host = hostOf(url);
  const lower = host.toLowerCase().replace(/\.$/, "");
  if (net.isIP(host)) {
    if (addressProblem(policy, host, host)) throw targetRefused();
    return host;
  }
  if (policy.hosts.has(lower)) return null;
  if (lower === "localhost" || lower.endsWith(".localhost")) throw targetRefused();
  let addresses: { address: string }[];
  try {
    addresses = await dns.lookup(host, { all: true });
  } catch {
    throw connectorErrors.unreachable("The server name could not be resolved; check the address.");
  }
  if (addresses.length === 0 || addresses.some((a) => addressProblem(policy, host, a.address))) throw targetRefused();
  return addresses[0]!.address;
}

/** The `lookup` a connection uses, so what it connects to passed the same check. */
export function targetLookup(policy: TargetPolicy): net.LookupFunction {
  return guardedLookup(policy);
}
