/**
 * What every vendor's HTTPS client does alike before and around its protocol: the address is
 * HTTPS only, the connection is checked against the connection-target policy
 * (server/connectors/target.ts) and resolves through the same check, it trusts the configured CA
 * or the system's (never "any certificate"), and a failure that got no answer is told in a
 * dealer's words. The MT5 Web API, the MT4 gateway and the Match-Trader Broker API clients build
 * on it; a new vendor's client should too (docs/connectors.md).
 */
import { Client } from "undici";
import { ConnectorError, connectorErrors } from "../errors.ts";
import { checkTarget, isTargetRefused, NO_INTERNAL_TARGETS, targetLookup, targetRefused, type TargetPolicy } from "../target.ts";
import { LinkError } from "../wire/wire.ts";
import { isIp } from "./address.ts";

/** The server's URL, refused (invalidRequest, in the vendor's words) unless it is HTTPS: credentials travel on it. */
export function httpsUrl(address: string, notHttps: string): URL {
  const url = new URL(address);
  if (url.protocol !== "https:") throw connectorErrors.invalidRequest(notHttps);
  return url;
}

/** A TLS failure: the server's certificate is not one the client trusts. */
export function isCertificateFailure(codes: string): boolean {
  return /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME|ERR_TLS/.test(codes);
}

export function untrustedCertificate(): ConnectorError {
  return connectorErrors.unreachable(
    "Its HTTPS certificate is not trusted: give the certificate of the CA that signed it in the connection settings, or check the address.",
  );
}

/**
 * A request that got no answer, in a dealer's words: a refused target, an untrusted certificate
 * or a name that does not resolve say so; the rest is a lost link, `unreachable` while the
 * session is being opened and `closed` once it was up.
 */
export function networkError(error: unknown, duringHandshake: boolean): Error {
  if (isTargetRefused(error)) return targetRefused();
  const code = (error as { code?: string } | null)?.code ?? "";
  const cause = (error as { cause?: { code?: string } } | null)?.cause?.code ?? "";
  const all = `${code} ${cause}`;
  if (isCertificateFailure(all)) return untrustedCertificate();
  if (/ENOTFOUND|EAI_AGAIN/.test(all)) return connectorErrors.unreachable("The server name could not be resolved; check the address.");
  return new LinkError(duringHandshake ? "unreachable" : "closed");
}

export interface TlsTarget {
  /** PEM of the CA that signed the server's certificate; the system's CAs when absent. */
  ca?: string;
  /** Which internal addresses may be reached; none by default. */
  targets?: TargetPolicy;
}

/**
 * Checks the target, then answers a maker of undici clients for it: one keep-alive connection
 * each (the vendors tie a session to a connection), no request or body timeout of its own (the
 * WireConnector times requests), the configured CA, and names resolved through the same check,
 * so a name cannot turn internal after it.
 */
export async function guardedClients(url: URL, options: TlsTarget): Promise<() => Client> {
  const targets = options.targets ?? NO_INTERNAL_TARGETS;
  await checkTarget(url, targets);
  return () =>
    new Client(url.origin, {
      connect: {
        ca: options.ca,
        rejectUnauthorized: true,
        servername: isIp(url.hostname) ? undefined : url.hostname,
        ...({ lookup: targetLookup(targets) } as object),
      },
      pipelining: 1,
      keepAliveTimeout: 600_000,
      keepAliveMaxTimeout: 600_000,
      headersTimeout: 0,
      bodyTimeout: 0,
    });
}
