/**
 * What the copy-link routes do: each change checks the link (./validation.ts), then in one
 * transaction holding the organization's row lock (so two links cannot close a cycle together)
 * checks cycles and the version read, writes, and records the audit row with before and after.
 */
import type { CopyLink, CopyLinkBody } from "../../../core/schemas/copier.ts";
import type { Db, DbOrTx } from "../../db/client.ts";
import { ConflictError, NotFoundError } from "../../errors.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import * as repo from "./repository.ts";
import { checkAccounts, checkNoCycle, normalized, type ConnectorFor } from "./validation.ts";

export interface CopierDeps {
  db: Db;
  connectorFor: ConnectorFor;
}

const TARGET = "copyLink";
const NOT_FOUND = "No such copy link";

async function lockedLink(tx: DbOrTx, organizationId: string, id: string, version?: number): Promise<CopyLink> {
  const before = await repo.findLink(tx, organizationId, id, { forUpdate: true });
  if (!before) throw new NotFoundError(NOT_FOUND);
  if (version !== undefined && before.version !== version)
    throw new ConflictError(
      `Someone else changed this link since you opened it (version ${before.version}, yours ${version}). Reload it and make your change again.`,
      "stale_version",
    );
  return before;
}

export async function createLink(deps: CopierDeps, actor: Actor, input: CopyLinkBody): Promise<CopyLink> {
  const body = normalized(input);
  await checkAccounts(deps.db, deps.connectorFor, actor.organizationId, body);
  return deps.db.transaction(async (tx) => {
    await repo.lockOrganization(tx, actor.organizationId);
    await checkNoCycle(tx, actor.organizationId, body, await repo.listLinks(tx, actor.organizationId));
    const after = await repo.insertLink(tx, actor.organizationId, body);
    await recordAudit(tx, actor, { action: "copyLink.created", targetType: TARGET, targetId: after.id, after });
    return after;
  });
}

/** Replaces a link; `version` is the one the caller read (409 when someone changed it since). */
export async function replaceLink(deps: CopierDeps, actor: Actor, id: string, version: number, input: CopyLinkBody): Promise<CopyLink> {
  const body = normalized(input);
  if (!(await repo.findLink(deps.db, actor.organizationId, id))) throw new NotFoundError(NOT_FOUND);
  await checkAccounts(deps.db, deps.connectorFor, actor.organizationId, body);
  return deps.db.transaction(async (tx) => {
    await repo.lockOrganization(tx, actor.organizationId);
    const before = await lockedLink(tx, actor.organizationId, id, version);
    const others = (await repo.listLinks(tx, actor.organizationId)).filter((l) => l.id !== id);
    await checkNoCycle(tx, actor.organizationId, body, others);
    const after = await repo.replaceLink(tx, actor.organizationId, id, body, before.version + 1);
    await recordAudit(tx, actor, { action: "copyLink.updated", targetType: TARGET, targetId: id, before, after });
    return after;
  });
}

export async function removeLink(deps: CopierDeps, actor: Actor, id: string, version?: number): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const before = await lockedLink(tx, actor.organizationId, id, version);
    await repo.deleteLink(tx, actor.organizationId, id);
    await recordAudit(tx, actor, { action: "copyLink.deleted", targetType: TARGET, targetId: id, before });
  });
}

/** The whole link on or off. */
export async function setLinkEnabled(deps: CopierDeps, actor: Actor, id: string, enabled: boolean, version?: number): Promise<CopyLink> {
  return deps.db.transaction(async (tx) => {
    const before = await lockedLink(tx, actor.organizationId, id, version);
    await repo.touchLink(tx, actor.organizationId, id, before.version + 1, enabled);
    const after = (await repo.findLink(tx, actor.organizationId, id))!;
    await recordAudit(tx, actor, { action: enabled ? "copyLink.enabled" : "copyLink.disabled", targetType: TARGET, targetId: id, before, after });
    return after;
  });
}

/** One follower of a link on or off. */
export async function setFollowerEnabled(
  deps: CopierDeps,
  actor: Actor,
  id: string,
  account: { platformId: string; login: string },
  enabled: boolean,
  version?: number,
): Promise<CopyLink> {
  return deps.db.transaction(async (tx) => {
    const before = await lockedLink(tx, actor.organizationId, id, version);
    const platformId = account.platformId.toLowerCase();
    if (!(await repo.setFollowerEnabled(tx, id, platformId, account.login, enabled))) throw new NotFoundError("No such follower on this link");
    await repo.touchLink(tx, actor.organizationId, id, before.version + 1);
    const after = (await repo.findLink(tx, actor.organizationId, id))!;
    await recordAudit(tx, actor, {
      action: enabled ? "copyLink.followerEnabled" : "copyLink.followerDisabled",
      targetType: TARGET,
      targetId: id,
      before,
      after,
    });
    return after;
  });
}

/**
 * Resumes one follower a risk stop suspended (audited `copyLink.followerResumed`). The link's
 * version does not change: a suspension is not a setting. A follower not suspended is left as is
 * (no audit row), so a repeat is harmless. The stop is checked again at the next new copy and the
 * engine's next pass: a follower still beyond it is suspended again.
 */
export async function resumeFollower(deps: CopierDeps, actor: Actor, id: string, account: { platformId: string; login: string }): Promise<CopyLink> {
  return deps.db.transaction(async (tx) => {
    const before = await lockedLink(tx, actor.organizationId, id);
    const platformId = account.platformId.toLowerCase();
    if (!before.followers.some((f) => f.account.platformId === platformId && f.account.login === account.login))
      throw new NotFoundError("No such follower on this link");
    if (!(await repo.resumeFollower(tx, id, platformId, account.login))) return before;
    const after = (await repo.findLink(tx, actor.organizationId, id))!;
    await recordAudit(tx, actor, { action: "copyLink.followerResumed", targetType: TARGET, targetId: id, before, after });
    return after;
  });
}
