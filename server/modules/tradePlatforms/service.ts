/**
 * What the platform routes do: each change and its audit record in one transaction, then the
 * runtime brought in line with the committed row. Secrets are encrypted before they reach the
 * database (the platform id as associated data) and never leave this module in the clear except
 * to the connector.
 */
import crypto from "node:crypto";
import type { Db } from "../../db/client.ts";
import type { PlatformApp } from "../../db/tables/platforms.ts";
import { HttpError } from "../../http/errors.ts";
import {
  kindMismatch,
  isRealKindAvailable,
  needsSecret,
  publicConnection,
  realKindUnavailable,
  splitConnection,
  type ConnectionInput,
  type StoredConnection,
} from "../../platforms/connection.ts";
import type { PlatformRuntime } from "../../platforms/runtime.ts";
import type { TestConnectionResult } from "../../platforms/testConnection.ts";
import { normalizeTimeZone } from "../../platforms/timeZone.ts";
import type { SecretCipher } from "../../secrets/cipher.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import * as repo from "./repository.ts";
import type { CreatePlatformBody, PlatformDetail, TestConnectionBody, UpdatePlatformBody } from "./schemas.ts";

export interface PlatformDeps {
  db: Db;
  platforms: PlatformRuntime;
  secrets: SecretCipher;
}

const NOT_FOUND = "No such trade platform";
const TARGET = "tradePlatform";

export async function getDetail(deps: PlatformDeps, organizationId: string, id: string): Promise<PlatformDetail> {
  const row = await repo.findPlatform(deps.db, organizationId, id);
  if (!row) throw new HttpError(404, NOT_FOUND);
  return detailOf(deps, row, await repo.listApps(deps.db, row.id));
}

export async function createPlatform(deps: PlatformDeps, actor: Actor, body: CreatePlatformBody): Promise<PlatformDetail> {
  const timeZone = normalizeTimeZone(body.timeZone)!;
  checkConnection(body.type, body.connection);
  const id = crypto.randomUUID();
  const { stored, secret } = splitConnection(body.connection, { seed: randomSeed });
  if (needsSecret(stored) && !secret) throw new HttpError(400, secretMissing(stored));

  const row = await uniqueName(body.name, () =>
    deps.db.transaction(async (tx) => {
      if (await repo.nameTaken(tx, actor.organizationId, body.name)) throw nameConflict(body.name);
      const created = await repo.insertPlatform(tx, {
        id,
        organizationId: actor.organizationId,
        type: body.type,
        name: body.name,
        enable: true,
        timeZone,
        connection: stored,
        secretCiphertext: secret ? deps.secrets.encrypt(secret, id) : null,
      });
      await recordAudit(tx, actor, { action: "tradePlatform.created", targetType: TARGET, targetId: id, after: auditView(created) });
      return created;
    }),
  );
  await deps.platforms.refresh(row.id);
  return detailOf(deps, row, await repo.listApps(deps.db, row.id));
}

export async function updatePlatform(deps: PlatformDeps, actor: Actor, id: string, body: UpdatePlatformBody): Promise<PlatformDetail> {
  const current = await repo.findPlatform(deps.db, actor.organizationId, id);
  if (!current) throw new HttpError(404, NOT_FOUND);
  // Work out the change (and refuse bad input) before opening the transaction.
  let connectionChange: { stored: StoredConnection; secret: string | null | undefined } | null = null;
  if (body.connection) {
    checkConnection(current.type, body.connection);
    const previous = current.connection.kind === body.connection.kind ? current.connection : undefined;
    connectionChange = splitConnection(body.connection, { seed: randomSeed, previous });
    if (connectionChange.secret === undefined && needsSecret(connectionChange.stored)) {
      // No new secret given: keep the stored one, if the kind did not change and there is one.
      if (!previous || !current.secretCiphertext) throw new HttpError(400, secretMissing(connectionChange.stored));
      assertSameEndpoint(previous, connectionChange.stored);
    }
  }

  const row = await uniqueName(body.name ?? current.name, () =>
    deps.db.transaction(async (tx) => {
      const before = await repo.findPlatform(tx, actor.organizationId, current.id, { forUpdate: true });
      if (!before) throw new HttpError(404, NOT_FOUND);
      const set: Parameters<typeof repo.updatePlatform>[2] = {};
      let secretReplaced = false;
      if (body.name !== undefined && body.name !== before.name) {
        if (await repo.nameTaken(tx, actor.organizationId, body.name, before.id)) throw nameConflict(body.name);
        set.name = body.name;
      }
      if (body.timeZone !== undefined) {
        const timeZone = normalizeTimeZone(body.timeZone)!;
        if (timeZone !== before.timeZone) set.timeZone = timeZone;
      }
      if (connectionChange) {
        const { stored, secret } = connectionChange;
        if (!sameJson(stored, before.connection)) set.connection = stored;
        if (secret === null && before.secretCiphertext !== null) set.secretCiphertext = null;
        if (typeof secret === "string") {
          set.secretCiphertext = deps.secrets.encrypt(secret, before.id);
          secretReplaced = true;
        }
      }
      const enableChanged = body.enable !== undefined && body.enable !== before.enable;
      if (enableChanged) set.enable = body.enable;
      if (Object.keys(set).length === 0) return null;

      const after = await repo.updatePlatform(tx, before.id, set);
      const settingsChanged = Object.keys(set).some((k) => k !== "enable");
      if (settingsChanged) {
        await recordAudit(tx, actor, {
          action: "tradePlatform.updated",
          targetType: TARGET,
          targetId: before.id,
          before: auditView(before),
          after: { ...auditView(after), ...(secretReplaced ? { secretReplaced: true } : {}) },
        });
      }
      if (enableChanged) {
        await recordAudit(tx, actor, {
          action: after.enable ? "tradePlatform.enabled" : "tradePlatform.disabled",
          targetType: TARGET,
          targetId: before.id,
          before: { enable: before.enable },
          after: { enable: after.enable },
        });
      }
      return after;
    }),
  );
  if (!row) return detailOf(deps, current, await repo.listApps(deps.db, current.id));
  await deps.platforms.refresh(row.id);
  return detailOf(deps, row, await repo.listApps(deps.db, row.id));
}

export async function deletePlatform(deps: PlatformDeps, actor: Actor, id: string, confirmName: string): Promise<void> {
  const deleted = await deps.db.transaction(async (tx) => {
    const row = await repo.findPlatform(tx, actor.organizationId, id, { forUpdate: true });
    if (!row) throw new HttpError(404, NOT_FOUND);
    if (confirmName !== row.name) throw new HttpError(400, "Type the platform's name to confirm");
    await repo.deletePlatform(tx, row.id);
    await recordAudit(tx, actor, { action: "tradePlatform.deleted", targetType: TARGET, targetId: row.id, before: auditView(row) });
    return row;
  });
  // The row is gone: the runtime closes the connection, stops a simulated server and tells listeners.
  await deps.platforms.refresh(deleted.id);
}

export async function getApps(deps: PlatformDeps, organizationId: string, id: string) {
  const row = await repo.findPlatform(deps.db, organizationId, id);
  if (!row) throw new HttpError(404, NOT_FOUND);
  return repo.listApps(deps.db, row.id);
}

export async function setApps(deps: PlatformDeps, actor: Actor, id: string, apps: { app: PlatformApp; enabled: boolean }[]) {
  return deps.db.transaction(async (tx) => {
    const row = await repo.findPlatform(tx, actor.organizationId, id, { forUpdate: true });
    if (!row) throw new HttpError(404, NOT_FOUND);
    const before = await repo.listApps(tx, row.id);
    await repo.setApps(tx, row.id, apps);
    const after = await repo.listApps(tx, row.id);
    if (JSON.stringify(before) !== JSON.stringify(after)) {
      await recordAudit(tx, actor, { action: "tradePlatform.appsAssigned", targetType: TARGET, targetId: row.id, before, after });
    }
    return after;
  });
}

/** Assigns one application to several platforms at once; all of them must be the organization's, else nothing changes. */
export async function assignApplication(deps: PlatformDeps, actor: Actor, app: PlatformApp, platformIds: string[]) {
  const unique = [...new Set(platformIds.map((p) => p.toLowerCase()))];
  return deps.db.transaction(async (tx) => {
    const owned = await repo.ownedPlatformIds(tx, actor.organizationId, unique);
    if (owned.size !== unique.length) throw new HttpError(404, NOT_FOUND);
    const result: { platformId: string; app: PlatformApp; enabled: true }[] = [];
    for (const platformId of unique) {
      const before = await repo.listApps(tx, platformId);
      if (!before.find((a) => a.app === app)?.enabled) {
        await repo.setApps(tx, platformId, [{ app, enabled: true }]);
        await recordAudit(tx, actor, {
          action: "tradePlatform.appsAssigned",
          targetType: TARGET,
          targetId: platformId,
          before,
          after: await repo.listApps(tx, platformId),
        });
      }
      result.push({ platformId, app, enabled: true });
    }
    return result;
  });
}

export async function testConnection(deps: PlatformDeps, organizationId: string, body: TestConnectionBody): Promise<TestConnectionResult> {
  checkConnection(body.type, body.connection);
  let saved: repo.PlatformRow | undefined;
  if (body.platformId !== undefined) {
    saved = await repo.findPlatform(deps.db, organizationId, body.platformId);
    if (!saved) throw new HttpError(404, NOT_FOUND);
  }
  const previous = saved && saved.connection.kind === body.connection.kind ? saved.connection : undefined;
  const { stored, secret } = splitConnection(body.connection, { seed: () => 1, previous });
  let effectiveSecret = secret ?? null;
  if (secret === undefined && needsSecret(stored)) {
    if (!previous || !saved?.secretCiphertext) throw new HttpError(400, secretMissing(stored));
    assertSameEndpoint(previous, stored);
    try {
      effectiveSecret = deps.secrets.decrypt(saved.secretCiphertext, saved.id);
    } catch {
      throw new HttpError(400, `The stored ${secretWord(stored)} cannot be decrypted with this server's key. Enter it again.`);
    }
  }
  const timeZone = normalizeTimeZone(body.timeZone ?? saved?.timeZone ?? "UTC") ?? "UTC";
  return deps.platforms.testConnection({ type: body.type, timeZone, connection: stored, secret: effectiveSecret, platformId: saved?.id });
}

// ── Views ────────────────────────────────────────────────────────────────────────────────────

export function detailOf(deps: PlatformDeps, row: repo.PlatformRow, apps: { app: PlatformApp; enabled: boolean }[]): PlatformDetail {
  return {
    id: row.id,
    organizationId: row.organizationId,
    type: row.type,
    name: row.name,
    enable: row.enable,
    timeZone: row.timeZone,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    connection: publicConnection(row.connection, row.secretCiphertext !== null),
    ...deps.platforms.state(row.id),
    apps,
  };
}

/** What the audit log keeps of a platform: everything a person set, never the secret. */
function auditView(row: repo.PlatformRow) {
  return {
    name: row.name,
    type: row.type,
    enable: row.enable,
    timeZone: row.timeZone,
    connection: publicConnection(row.connection, row.secretCiphertext !== null),
  };
}

// ── Checks ───────────────────────────────────────────────────────────────────────────────────

function checkConnection(type: repo.PlatformRow["type"], connection: ConnectionInput): void {
  const mismatch = kindMismatch(type, connection.kind);
  if (mismatch) throw new HttpError(400, mismatch);
  if (connection.kind !== "simulated" && !isRealKindAvailable(connection.kind)) throw new HttpError(400, realKindUnavailable(type));
  if (connection.kind === "simulated" && connection.password !== undefined && connection.login === undefined) {
    throw new HttpError(400, "Enter the manager login that goes with the password (or leave both empty for the built-in manager).");
  }
}

function secretWord(stored: StoredConnection): string {
  return stored.kind === "matchTraderApi" ? "API key" : "manager password";
}

function secretMissing(stored: StoredConnection): string {
  return `Enter the ${secretWord(stored)} for this connection.`;
}

function nameConflict(name: string): HttpError {
  return new HttpError(409, `A platform named "${name}" already exists in this organization. Choose another name.`);
}

/** A race between two creates (or renames) with one name ends in the unique index: same answer as the check. */
async function uniqueName<T>(name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (repo.isUniqueViolation(error)) throw nameConflict(name);
    throw error;
  }
}

/** Equal as JSON values, whatever the key order (jsonb hands keys back in its own order). */
function sameJson(a: unknown, b: unknown): boolean {
  const canonical = (v: unknown): unknown =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : 1)).map(([k, x]) => [k, canonical(x)]))
      : v;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function randomSeed(): number {
  return crypto.randomInt(0, 2 ** 31);
}

/**
 * A stored secret is only ever sent to the server it was given for: with a new address, API URL
 * or login, the person must type it again — otherwise anyone allowed to edit the platform could
 * point it at their own host and receive the manager password.
 */
function assertSameEndpoint(previous: StoredConnection, next: StoredConnection) {
  const endpoint = (c: StoredConnection) => {
    const fields = c as Partial<Record<"address" | "apiUrl" | "login", unknown>>;
    return JSON.stringify([fields.address ?? null, fields.apiUrl ?? null, fields.login ?? null]);
  };
  if (endpoint(previous) !== endpoint(next)) {
    throw new HttpError(400, `Enter the ${secretWord(next)} again: the server address or login changed, and a stored secret is only sent to the server it was given for.`);
  }
}
