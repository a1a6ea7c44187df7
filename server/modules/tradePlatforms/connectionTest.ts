/**
 * "Test connection": a real attempt with settings that are not (or not yet) saved. A saved
 * platform's stored secret is used when none is typed — only for the server it was given for.
 */
import { InvalidRequestError, NotFoundError } from "../../errors.ts";
import { assertSameEndpoint, checkConnection, secretMissing, secretWord } from "./connectionRules.ts";
import { NOT_FOUND, type PlatformDeps } from "./deps.ts";
import * as repo from "./repository.ts";
import { needsSecret, splitConnection } from "./runtime/connection.ts";
import type { TestConnectionResult } from "./runtime/testConnection.ts";
import { normalizeTimeZone } from "../../../core/schemas/timeZone.ts";
import type { TestConnectionBody } from "./schemas.ts";

export async function testConnection(deps: PlatformDeps, organizationId: string, body: TestConnectionBody): Promise<TestConnectionResult> {
  checkConnection(body.type, body.connection);
  let saved: repo.PlatformRow | undefined;
  if (body.platformId !== undefined) {
    saved = await repo.findPlatform(deps.db, organizationId, body.platformId);
    if (!saved) throw new NotFoundError(NOT_FOUND);
  }
  const previous = saved && saved.connection.kind === body.connection.kind ? saved.connection : undefined;
  const { stored, secret } = splitConnection(body.connection, { seed: () => 1, previous });
  let effectiveSecret = secret ?? null;
  if (secret === undefined && needsSecret(stored)) {
    if (!previous || !saved?.secretCiphertext) throw new InvalidRequestError(secretMissing(stored));
    assertSameEndpoint(previous, stored);
    try {
      effectiveSecret = deps.secrets.decrypt(saved.secretCiphertext, saved.id);
    } catch {
      throw new InvalidRequestError(`The stored ${secretWord(stored)} cannot be decrypted with this server's key. Enter it again.`);
    }
  }
  const timeZone = normalizeTimeZone(body.timeZone ?? saved?.timeZone ?? "UTC") ?? "UTC";
  return deps.platforms.testConnection({ type: body.type, timeZone, connection: stored, secret: effectiveSecret, platformId: saved?.id });
}
