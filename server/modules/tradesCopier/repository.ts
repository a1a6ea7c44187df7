/** The Trades Copier's SQL: copy links and their followers, and what validating a link reads. */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { CopyLink, CopyLinkBody } from "../../../core/schemas/copier.ts";
import type { DbOrTx } from "../../db/client.ts";
import { copyFollowers, copyLinks, organizations, tradePlatformApps, tradePlatforms, tradingAccounts } from "../../db/schema.ts";

type LinkRow = typeof copyLinks.$inferSelect;
type FollowerRow = typeof copyFollowers.$inferSelect;

function linkOf(row: LinkRow, followers: FollowerRow[]): CopyLink {
  return {
    id: row.id,
    name: row.name,
    enabled: row.enabled,
    source: { platformId: row.sourcePlatformId, login: row.sourceLogin },
    followers: followers
      .filter((f) => f.linkId === row.id)
      .sort((a, b) => a.position - b.position)
      .map((f) => ({ ...f.settings, account: { platformId: f.platformId, login: f.login }, enabled: f.enabled })),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    version: row.version,
    suspensions: followers
      .filter((f) => f.linkId === row.id && f.suspendedAt && (!f.suspendedUntil || f.suspendedUntil.getTime() > Date.now()))
      .sort((a, b) => a.position - b.position)
      .map((f) => ({
        account: { platformId: f.platformId, login: f.login },
        stop: f.suspendedStop ?? "equityFloor",
        action: f.suspendedAction ?? "suspend",
        reason: f.suspendedReason ?? "",
        at: f.suspendedAt!.toISOString(),
        until: f.suspendedUntil?.toISOString() ?? null,
      })),
  };
}

async function withFollowers(db: DbOrTx, organizationId: string, rows: LinkRow[]): Promise<CopyLink[]> {
  if (rows.length === 0) return [];
  const followers = await db
    .select()
    .from(copyFollowers)
    .where(
      and(
        eq(copyFollowers.organizationId, organizationId),
        inArray(
          copyFollowers.linkId,
          rows.map((r) => r.id),
        ),
      ),
    );
  return rows.map((r) => linkOf(r, followers));
}

/** Every link of the organization, by name. */
export async function listLinks(db: DbOrTx, organizationId: string): Promise<CopyLink[]> {
  const rows = await db.select().from(copyLinks).where(eq(copyLinks.organizationId, organizationId)).orderBy(asc(copyLinks.name), asc(copyLinks.id));
  return withFollowers(db, organizationId, rows);
}

/** One link of THAT organization (undefined for anyone else's); `forUpdate` locks its row. */
export async function findLink(db: DbOrTx, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}): Promise<CopyLink | undefined> {
  const query = db
    .select()
    .from(copyLinks)
    .where(and(eq(copyLinks.organizationId, organizationId), eq(copyLinks.id, id)));
  const rows = await (opts.forUpdate ? query.for("update") : query);
  return (await withFollowers(db, organizationId, rows))[0];
}

/**
 * The link's followers become exactly `body.followers`: those gone are deleted, the others are
 * written in place (keyed by account), so a follower kept across an edit keeps its row.
 */
async function writeFollowers(tx: DbOrTx, organizationId: string, linkId: string, body: CopyLinkBody) {
  const keep = body.followers.map((f) => `${f.account.platformId}:${f.account.login}`);
  const existing = await tx
    .select({ platformId: copyFollowers.platformId, login: copyFollowers.login })
    .from(copyFollowers)
    .where(eq(copyFollowers.linkId, linkId));
  for (const gone of existing.filter((e) => !keep.includes(`${e.platformId}:${e.login}`))) {
    await tx
      .delete(copyFollowers)
      .where(and(eq(copyFollowers.linkId, linkId), eq(copyFollowers.platformId, gone.platformId), eq(copyFollowers.login, gone.login)));
  }
  await tx
    .insert(copyFollowers)
    .values(
      body.followers.map((f, position) => ({
        linkId,
        organizationId,
        platformId: f.account.platformId,
        login: f.account.login,
        position,
        enabled: f.enabled,
        settings: f,
      })),
    )
    .onConflictDoUpdate({
      target: [copyFollowers.linkId, copyFollowers.platformId, copyFollowers.login],
      set: { position: sql`excluded.position`, enabled: sql`excluded.enabled`, settings: sql`excluded.settings`, updatedAt: sql`now()` },
    });
}

/** One follower on or off (the link's version goes one up in the same transaction, by the caller). */
export async function setFollowerEnabled(tx: DbOrTx, linkId: string, platformId: string, login: string, enabled: boolean): Promise<boolean> {
  const rows = await tx
    .update(copyFollowers)
    .set({
      enabled,
      settings: sql`jsonb_set(${copyFollowers.settings}, '{enabled}', ${enabled ? sql`'true'::jsonb` : sql`'false'::jsonb`})`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(copyFollowers.linkId, linkId), eq(copyFollowers.platformId, platformId), eq(copyFollowers.login, login)))
    .returning({ login: copyFollowers.login });
  return rows.length === 1;
}

/** Lifts a follower's risk-stop suspension; false when it was not suspended (or its daily suspension had lapsed). */
export async function resumeFollower(tx: DbOrTx, linkId: string, platformId: string, login: string): Promise<boolean> {
  const rows = await tx
    .update(copyFollowers)
    .set({ suspendedAt: null, suspendedStop: null, suspendedAction: null, suspendedReason: null, suspendedUntil: null, updatedAt: sql`now()` })
    .where(
      and(
        eq(copyFollowers.linkId, linkId),
        eq(copyFollowers.platformId, platformId),
        eq(copyFollowers.login, login),
        sql`${copyFollowers.suspendedAt} is not null and (${copyFollowers.suspendedUntil} is null or ${copyFollowers.suspendedUntil} > now())`,
      ),
    )
    .returning({ login: copyFollowers.login });
  return rows.length === 1;
}

/** The link on or off, or only its version up (a follower changed); `updatedAt` is now. */
export async function touchLink(tx: DbOrTx, organizationId: string, id: string, version: number, enabled?: boolean): Promise<void> {
  await tx
    .update(copyLinks)
    .set({ version, updatedAt: new Date(), ...(enabled === undefined ? {} : { enabled }) })
    .where(and(eq(copyLinks.organizationId, organizationId), eq(copyLinks.id, id)));
}

export async function insertLink(tx: DbOrTx, organizationId: string, body: CopyLinkBody): Promise<CopyLink> {
  const [row] = await tx
    .insert(copyLinks)
    .values({ organizationId, name: body.name, enabled: body.enabled, sourcePlatformId: body.source.platformId, sourceLogin: body.source.login })
    .returning();
  await writeFollowers(tx, organizationId, row!.id, body);
  return (await findLink(tx, organizationId, row!.id))!;
}

/** Replaces the link's fields and followers; the version goes one up. */
export async function replaceLink(tx: DbOrTx, organizationId: string, id: string, body: CopyLinkBody, version: number): Promise<CopyLink> {
  await tx
    .update(copyLinks)
    .set({ name: body.name, enabled: body.enabled, sourcePlatformId: body.source.platformId, sourceLogin: body.source.login, version, updatedAt: new Date() })
    .where(and(eq(copyLinks.organizationId, organizationId), eq(copyLinks.id, id)));
  await writeFollowers(tx, organizationId, id, body);
  return (await findLink(tx, organizationId, id))!;
}

export async function deleteLink(tx: DbOrTx, organizationId: string, id: string): Promise<void> {
  await tx.delete(copyLinks).where(and(eq(copyLinks.organizationId, organizationId), eq(copyLinks.id, id)));
}

export interface CopierPlatform {
  id: string;
  name: string;
  type: string;
  /** The Trades Copier app is assigned (and enabled) on it. */
  copier: boolean;
}

/** The organization's platforms among `ids` (anyone else's are simply absent), and whether the Trades Copier is assigned. */
export async function platformsOf(db: DbOrTx, organizationId: string, ids?: readonly string[]): Promise<CopierPlatform[]> {
  const rows = await db
    .select({ id: tradePlatforms.id, name: tradePlatforms.name, type: tradePlatforms.type, app: tradePlatformApps.enabled })
    .from(tradePlatforms)
    .leftJoin(tradePlatformApps, and(eq(tradePlatformApps.platformId, tradePlatforms.id), eq(tradePlatformApps.app, "tradesCopier")))
    .where(
      ids ? and(eq(tradePlatforms.organizationId, organizationId), inArray(tradePlatforms.id, [...ids])) : eq(tradePlatforms.organizationId, organizationId),
    )
    .orderBy(asc(tradePlatforms.name));
  return rows.map((r) => ({ id: r.id, name: r.name, type: r.type, copier: r.app === true }));
}

/** Which of these logins of one platform are in the accounts mirror. */
export async function mirroredLogins(db: DbOrTx, organizationId: string, platformId: string, logins: readonly string[]): Promise<Set<string>> {
  if (logins.length === 0) return new Set();
  const rows = await db
    .select({ login: tradingAccounts.login })
    .from(tradingAccounts)
    .where(and(eq(tradingAccounts.organizationId, organizationId), eq(tradingAccounts.platformId, platformId), inArray(tradingAccounts.login, [...logins])));
  return new Set(rows.map((r) => r.login));
}

/** Holds the organization's row until the transaction ends: its link changes go one at a time (no two close a cycle together). */
export async function lockOrganization(tx: DbOrTx, organizationId: string): Promise<void> {
  await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, organizationId)).for("update");
}
