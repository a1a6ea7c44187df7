/**
 * What the platform service checks of a connection beyond its schema (core/schemas/platform.ts):
 * the kinds a platform type may use, the secret that goes with it, and that a stored secret is
 * only ever sent to the server it was given for.
 */
import { InvalidRequestError } from "../../errors.ts";
import { isRealKindAvailable, kindMismatch, realKindUnavailable, type ConnectionInput, type StoredConnection } from "./runtime/connection.ts";
import type { PlatformRow } from "./repository.ts";

export function checkConnection(type: PlatformRow["type"], connection: ConnectionInput): void {
  const mismatch = kindMismatch(type, connection.kind);
  if (mismatch) throw new InvalidRequestError(mismatch);
  if (connection.kind !== "simulated" && !isRealKindAvailable(connection.kind)) throw new InvalidRequestError(realKindUnavailable(type));
  if (connection.kind === "simulated" && connection.password !== undefined && connection.login === undefined) {
    throw new InvalidRequestError("Enter the manager login that goes with the password (or leave both empty for the built-in manager).");
  }
}

export function secretWord(stored: StoredConnection): string {
  return stored.kind === "matchTraderApi" ? "API key" : "manager password";
}

export function secretMissing(stored: StoredConnection): string {
  return `Enter the ${secretWord(stored)} for this connection.`;
}

/**
 * A stored secret is only ever sent to the server it was given for: with a new address, API URL
 * or login, the person must type it again — otherwise anyone allowed to edit the platform could
 * point it at their own host and receive the manager password.
 */
export function assertSameEndpoint(previous: StoredConnection, next: StoredConnection) {
  const endpoint = (c: StoredConnection) => {
    const fields = c as Partial<Record<"address" | "apiUrl" | "grpcAddress" | "login" | "caCertificate", unknown>>;
    // The trusted CA too: whoever can swap it (with a position on the network) could read the password.
    // Match-Trader's feed address too: the API key goes there as well.
    return JSON.stringify([fields.address ?? null, fields.apiUrl ?? null, fields.login ?? null, fields.caCertificate ?? null, fields.grpcAddress ?? null]);
  };
  if (endpoint(previous) !== endpoint(next)) {
    throw new InvalidRequestError(
      `Enter the ${secretWord(next)} again: the server address or login changed, and a stored secret is only sent to the server it was given for.`,
    );
  }
}
