import { and, asc, eq, inArray, ne, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "../../db/client.ts";
import { onlyRow } from "../../db/rows.ts";
import { memberships, tradePlatformApps, tradePlatforms, PLATFORM_APP_VALUES, type PlatformApp } from "../../db/schema.ts";
import { UUID_PATTERN as UUID } from "../../../core/ids.ts";
import type { SimulatedUse } from "../../quotas.ts";

export type PlatformRow = typeof tradePlatforms.$inferSelect;
export type NewPlatformRow = typeof tradePlatforms.$inferInsert;

/** Only a UUID can name a platform; anything else simply names none (PostgreSQL would refuse it with an error). */
export function isPlatformId(id: string): boolean {
  return UUID.test(id);
}

/** Trade platforms of every organization the person belongs to, in one query. */
export async function listTradePlatformsOf(db: Db, sub: string) {
  return db
    .select({
      id: tradePlatforms.id,
      organizationId: tradePlatforms.organizationId,
      type: tradePlatforms.type,
      name: tradePlatforms.name,
      enable: tradePlatforms.enable,
    })
    .from(tradePlatforms)
    .innerJoin(memberships, eq(memberships.organizationId, tradePlatforms.organizationId))
    .where(eq(memberships.userSub, sub))
    .orderBy(asc(tradePlatforms.organizationId), asc(tradePlatforms.name), asc(tradePlatforms.id));
}

/** Ids of an organization's platforms (the live page's first events). */
export async function platformIdsOf(db: Db, organizationId: string): Promise<string[]> {
  const rows = await db
    .select({ id: tradePlatforms.id })
    .from(tradePlatforms)
    .where(eq(tradePlatforms.organizationId, organizationId))
    .orderBy(asc(tradePlatforms.name), asc(tradePlatforms.id));
  return rows.map((r) => r.id);
}

/** One platform of THAT organization; undefined for anyone else's (or a malformed id). `forUpdate` locks the row. */
export async function findPlatform(db: DbOrTx, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}) {
  if (!isPlatformId(id)) return undefined;
  const query = db
    .select()
    .from(tradePlatforms)
    .where(and(eq(tradePlatforms.id, id.toLowerCase()), eq(tradePlatforms.organizationId, organizationId)));
  const [row] = await (opts.forUpdate ? query.for("update") : query);
  return row;
}

export async function nameTaken(db: DbOrTx, organizationId: string, name: string, exceptId?: string): Promise<boolean> {
  const rows = await db
    .select({ id: tradePlatforms.id })
    .from(tradePlatforms)
    .where(and(eq(tradePlatforms.organizationId, organizationId), eq(tradePlatforms.name, name)));
  return rows.some((r) => r.id !== exceptId);
}

export async function insertPlatform(db: DbOrTx, values: NewPlatformRow): Promise<PlatformRow> {
  return onlyRow(await db.insert(tradePlatforms).values(values).returning(), "the new platform");
}

export async function updatePlatform(
  db: DbOrTx,
  id: string,
  set: Partial<Pick<PlatformRow, "name" | "enable" | "timeZone" | "connection" | "secretCiphertext">>,
): Promise<PlatformRow> {
  const rows = await db
    .update(tradePlatforms)
    .set({ ...set, updatedAt: sql`now()` })
    .where(eq(tradePlatforms.id, id))
    .returning();
  return onlyRow(rows, `the update of platform ${id}`);
}

/**
 * What the organization's simulated platforms use (count, accounts, trade rate), but for
 * `exceptId`. Call it after `lockForQuota` in the transaction that adds or changes one.
 */
export async function simulatedUseOf(db: DbOrTx, organizationId: string, exceptId?: string): Promise<SimulatedUse> {
  const rows = await db
    .select({ connection: tradePlatforms.connection })
    .from(tradePlatforms)
    .where(and(eq(tradePlatforms.organizationId, organizationId), exceptId ? ne(tradePlatforms.id, exceptId) : undefined));
  const use: SimulatedUse = { platforms: 0, accounts: 0, tradeRate: 0 };
  for (const { connection: c } of rows) {
    if (c.kind !== "simulated") continue;
    use.platforms++;
    use.accounts += c.accounts;
    use.tradeRate += c.tradeRate;
  }
  return use;
}

/** Deletes the platform; its apps (and mirrored accounts) go with it by foreign-key cascade. */
export async function deletePlatform(db: DbOrTx, id: string): Promise<void> {
  await db.delete(tradePlatforms).where(eq(tradePlatforms.id, id));
}

/** Every application with its state on the platform (absent rows: not assigned). */
export async function listApps(db: DbOrTx, platformId: string): Promise<{ app: PlatformApp; enabled: boolean }[]> {
  const rows = await db
    .select({ app: tradePlatformApps.app, enabled: tradePlatformApps.enabled })
    .from(tradePlatformApps)
    .where(eq(tradePlatformApps.platformId, platformId));
  const byApp = new Map(rows.map((r) => [r.app, r.enabled]));
  return PLATFORM_APP_VALUES.map((app) => ({ app, enabled: byApp.get(app) ?? false }));
}

export async function setApps(db: DbOrTx, platformId: string, apps: readonly { app: PlatformApp; enabled: boolean }[]): Promise<void> {
  if (apps.length === 0) return;
  await db
    .insert(tradePlatformApps)
    .values(apps.map((a) => ({ platformId, app: a.app, enabled: a.enabled })))
    .onConflictDoUpdate({
      target: [tradePlatformApps.platformId, tradePlatformApps.app],
      set: { enabled: sql`excluded.enabled`, updatedAt: sql`now()` },
    });
}

/** Of the given ids, those that are platforms of the organization. */
export async function ownedPlatformIds(db: DbOrTx, organizationId: string, ids: readonly string[]): Promise<Set<string>> {
  const valid = ids.filter(isPlatformId).map((id) => id.toLowerCase());
  if (valid.length === 0) return new Set();
  const rows = await db
    .select({ id: tradePlatforms.id })
    .from(tradePlatforms)
    .where(and(eq(tradePlatforms.organizationId, organizationId), inArray(tradePlatforms.id, valid)));
  return new Set(rows.map((r) => r.id));
}

/** A unique-index violation (two platforms of one organization with the same name, by a race). */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === "23505") return true;
  }
  return false;
}
