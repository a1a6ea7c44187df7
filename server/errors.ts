/**
 * Errors the domain code throws on purpose. Each carries a message written for the person using
 * Toolbox (shown as is) and a kind; `server/http/errors.ts` turns the kind into an HTTP status in
 * one place. Domain code never names HTTP statuses, and a connector's ConnectorError is mapped
 * here once (`domainErrorOf`) for everyone.
 */
import { ConnectorError } from "./connectors/errors.ts";

export type DomainErrorKind =
  /** The request cannot be carried out as sent (a missing or contradictory value): 400. */
  | "invalid"
  /** The caller may not do this, though they may use the route (granting more than they hold): 403. */
  | "forbidden"
  /** The thing does not exist, or is not this organization's (never revealed): 404. */
  | "notFound"
  /** It clashes with the current state (a taken name, a disabled platform, still in progress): 409. */
  | "conflict"
  /** Understood and refused by a rule: a limit, a quota, the trading platform's own refusal: 422. */
  | "refused"
  /** Something it depends on is not available now; trying later may succeed: 503. */
  | "unavailable"
  /** The caller holds as much of a bounded resource as allowed (live streams): 429. */
  | "tooMany";

export class DomainError extends Error {
  override readonly name: string = "DomainError";
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    /** A machine-readable reason where a client acts on it (`excludes_own_address`); sent as the body's `code`. */
    readonly code?: string,
  ) {
    super(message);
  }
}

export class InvalidRequestError extends DomainError {
  override readonly name = "InvalidRequestError";
  constructor(message: string) {
    super("invalid", message);
  }
}

export class ForbiddenError extends DomainError {
  override readonly name = "ForbiddenError";
  constructor(message: string) {
    super("forbidden", message);
  }
}

export class NotFoundError extends DomainError {
  override readonly name = "NotFoundError";
  constructor(message: string) {
    super("notFound", message);
  }
}

export class ConflictError extends DomainError {
  override readonly name = "ConflictError";
  constructor(message: string, code?: string) {
    super("conflict", message, code);
  }
}

export class RefusedError extends DomainError {
  override readonly name = "RefusedError";
  constructor(message: string) {
    super("refused", message);
  }
}

export class UnavailableError extends DomainError {
  override readonly name = "UnavailableError";
  constructor(message: string) {
    super("unavailable", message);
  }
}

/**
 * A connector's failure in domain terms. Connector messages are written for a dealer and carry no
 * secrets (server/connectors/errors.ts), so they are kept. A request the platform understood but
 * would not carry out — refused by a rule, or invalid by the platform's own rules (volume, stops)
 * after our schema accepted it — is "refused" (422); the platform, not the request, being the
 * problem (unreachable, timeout, credentials, resync) is "unavailable" (503).
 */
export function domainErrorOf(error: ConnectorError): DomainError {
  switch (error.code) {
    case "notFound":
      return new NotFoundError(error.message);
    case "rejected":
    case "invalidRequest":
      return new RefusedError(error.message);
    default:
      return new UnavailableError(error.message);
  }
}

/** Runs a connector call; its ConnectorError comes out as a DomainError, anything else as is. */
export async function viaConnector<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw error instanceof ConnectorError ? domainErrorOf(error) : error;
  }
}

export class TooManyError extends DomainError {
  override readonly name = "TooManyError";
  constructor(message: string, code?: string) {
    super("tooMany", message, code);
  }
}
