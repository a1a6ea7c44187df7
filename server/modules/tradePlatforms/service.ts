/**
 * What the platform routes do to a platform: each change and its audit record in one
 * transaction, then the runtime brought in line with the committed row. Secrets are encrypted
 * before they reach the database (the platform id as associated data) and never leave this module
 * in the clear except to the connector. Applications: apps.ts; "Test connection":
 * connectionTest.ts; how a platform is shown: views.ts.
 */
import crypto from "node:crypto";
import { transactionWithRetry } from "../../db/retry.ts";
import { ConflictError, InvalidRequestError, NotFoundError } from "../../errors.ts";
import { lockForQuota, requireSimulatedQuota, type SimulatedServerUse } from "../../quotas.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import { assertSameEndpoint, checkConnection, secretMissing } from "./connectionRules.ts";
import { AUDIT_TARGET as TARGET, NOT_FOUND, type PlatformDeps } from "./deps.ts";
import * as repo from "./repository.ts";
import { needsSecret, splitConnection, type StoredConnection } from "./runtime/connection.ts";
import { normalizeTimeZone } from "../../../core/schemas/timeZone.ts";
import type { CreatePlatformBody, PlatformDetail, UpdatePlatformBody } from "./schemas.ts";
import { auditView, detailOf } from "./views.ts";

export async function getDetail(deps: PlatformDeps, organizationId: string, id: string): Promise<PlatformDetail> {
  const row = await repo.findPlatform(deps.db, organizationId, id);
  if (!row) throw new NotFoundError(NOT_FOUND);
  return detailOf(deps, row, await repo.listApps(deps.db, row.id));
}

export async function createPlatform(deps: PlatformDeps, actor: Actor, body: CreatePlatformBody): Promise<PlatformDetail> {
  const timeZone = normalizeTimeZone(body.timeZone)!;
  checkConnection(body.type, body.connection);
  const id = crypto.randomUUID();
  const { stored, secret } = splitConnection(body.connection, { seed: randomSeed });
  if (needsSecret(stored) && !secret) throw new InvalidRequestError(secretMissing(stored));

  const row = await uniqueName(body.name, () =>
    deps.db.transaction(async (tx) => {
      if (await repo.nameTaken(tx, actor.organizationId, body.name)) throw nameConflict(body.name);
      await lockForQuota(tx, { organizationId: actor.organizationId });
      requireSimulatedQuota(deps.quotas, await repo.simulatedUseOf(tx, actor.organizationId), simulatedUse(stored));
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
  if (!current) throw new NotFoundError(NOT_FOUND);
  // Work out the change (and refuse bad input) before opening the transaction.
  let connectionChange: { stored: StoredConnection; secret: string | null | undefined } | null = null;
  if (body.connection) {
    checkConnection(current.type, body.connection);
    const previous = current.connection.kind === body.connection.kind ? current.connection : undefined;
    connectionChange = splitConnection(body.connection, { seed: randomSeed, previous });
    if (connectionChange.secret === undefined && needsSecret(connectionChange.stored)) {
      // No new secret given: keep the stored one, if the kind did not change and there is one.
      if (!previous || !current.secretCiphertext) throw new InvalidRequestError(secretMissing(connectionChange.stored));
      assertSameEndpoint(previous, connectionChange.stored);
    }
  }

  const row = await uniqueName(body.name ?? current.name, () =>
    deps.db.transaction(async (tx) => {
      const before = await repo.findPlatform(tx, actor.organizationId, current.id, { forUpdate: true });
      if (!before) throw new NotFoundError(NOT_FOUND);
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
        if (!sameJson(stored, before.connection)) {
          set.connection = stored;
          await lockForQuota(tx, { organizationId: actor.organizationId });
          const others = await repo.simulatedUseOf(tx, actor.organizationId, before.id);
          requireSimulatedQuota(deps.quotas, others, simulatedUse(stored), simulatedUse(before.connection));
        }
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
  // The cascade over its trade history can meet the history writer's batches in a deadlock: PostgreSQL
  // then rolls this back whole, and it is simply run again.
  const deleted = await transactionWithRetry(deps.db, async (tx) => {
    const row = await repo.findPlatform(tx, actor.organizationId, id, { forUpdate: true });
    if (!row) throw new NotFoundError(NOT_FOUND);
    if (confirmName !== row.name) throw new InvalidRequestError("Type the platform's name to confirm");
    await repo.deletePlatform(tx, row.id);
    await recordAudit(tx, actor, { action: "tradePlatform.deleted", targetType: TARGET, targetId: row.id, before: auditView(row) });
    return row;
  });
  // The row is gone: the runtime closes the connection, stops a simulated server and tells listeners.
  await deps.platforms.refresh(deleted.id);
}

function nameConflict(name: string): ConflictError {
  return new ConflictError(`A platform named "${name}" already exists in this organization. Choose another name.`);
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
      ? Object.fromEntries(
          Object.entries(v)
            .sort(([x], [y]) => (x < y ? -1 : 1))
            .map(([k, x]) => [k, canonical(x)]),
        )
      : v;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** What a connection asks of the organization's simulated quotas; null when it is not simulated. */
function simulatedUse(connection: StoredConnection): SimulatedServerUse | null {
  return connection.kind === "simulated" ? { accounts: connection.accounts, tradeRate: connection.tradeRate } : null;
}

function randomSeed(): number {
  return crypto.randomInt(0, 2 ** 31);
}
