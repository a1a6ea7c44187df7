/**
 * How long a stream opened with a bearer token may stay open: until the (already verified) access
 * token expires, and at most an hour, so that permissions are checked again when the client
 * reconnects with its renewed token. The live streams (trade platforms' states, the blotter) end then.
 */
import type { FastifyRequest } from "fastify";

/** Even with a long-lived token, reconnect at least hourly (permissions are checked again then). */
export const MAX_STREAM_MS = 60 * 60_000;

/** Time left on the access token that opened the stream, capped by MAX_STREAM_MS, at least a second. */
export function streamLifetimeMs(request: FastifyRequest): number {
  return Math.max(1_000, Math.min(MAX_STREAM_MS, tokenLifetimeMs(request)));
}

/** Time left on the (already verified) access token that opened the request. */
export function tokenLifetimeMs(request: FastifyRequest): number {
  const token = /^Bearer +(\S+)/i.exec(request.headers.authorization ?? "")?.[1];
  const claims = token?.split(".")[1];
  if (claims === undefined) return MAX_STREAM_MS; // not a JWT we can read: the hourly limit applies
  try {
    const payload = JSON.parse(Buffer.from(claims, "base64url").toString("utf8")) as { exp?: unknown };
    if (typeof payload.exp === "number") return payload.exp * 1000 - Date.now();
  } catch {
    // Not a JWT we can read: the hourly limit applies.
  }
  return MAX_STREAM_MS;
}
