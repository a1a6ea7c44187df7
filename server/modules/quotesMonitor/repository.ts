/** The Quotes Monitor's SQL: its alert rules and the platforms the monitor is assigned to. */
import { and, asc, eq, sql } from "drizzle-orm";
import type { AlertRule, AlertRuleInput } from "../../../core/schemas/quotesMonitor.ts";
import type { Db, DbOrTx } from "../../db/client.ts";
import { quoteAlertRules, tradePlatformApps, tradePlatforms } from "../../db/schema.ts";

type RuleRow = typeof quoteAlertRules.$inferSelect;

/** A stored rule as the API answers it. */
export function ruleOf(row: RuleRow): AlertRule {
  const common = {
    id: row.id,
    name: row.name,
    enabled: row.enabled,
    platformIds: row.platformIds ?? ("all" as const),
    symbolMask: row.symbolMask,
    severity: row.severity as AlertRule["severity"],
    cooldownSeconds: row.cooldownSeconds,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
  const s = row.settings;
  switch (row.kind) {
    case "staleFeed":
      return { ...common, kind: "staleFeed", staleSeconds: s.staleSeconds ?? 0 };
    case "spread":
      return { ...common, kind: "spread", spreadPoints: s.spreadPoints ?? null, spreadTimesAverage: s.spreadTimesAverage ?? null };
    case "crossServer":
      return { ...common, kind: "crossServer", differencePoints: s.differencePoints ?? 0 };
  }
}

function columnsOf(input: AlertRuleInput, settings: Record<string, number | null>) {
  return {
    name: input.name,
    kind: input.kind,
    enabled: input.enabled,
    platformIds: input.platformIds === "all" ? null : input.platformIds,
    symbolMask: input.symbolMask,
    severity: input.severity,
    cooldownSeconds: input.cooldownSeconds,
    settings,
  };
}

export async function listRules(db: DbOrTx, organizationId: string): Promise<AlertRule[]> {
  const rows = await db.select().from(quoteAlertRules).where(eq(quoteAlertRules.organizationId, organizationId)).orderBy(asc(quoteAlertRules.name));
  return rows.map(ruleOf);
}

export async function countRules(db: DbOrTx, organizationId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(quoteAlertRules)
    .where(eq(quoteAlertRules.organizationId, organizationId));
  return row?.n ?? 0;
}

export async function findRule(db: DbOrTx, organizationId: string, id: string): Promise<AlertRule | undefined> {
  const [row] = await db
    .select()
    .from(quoteAlertRules)
    .where(and(eq(quoteAlertRules.organizationId, organizationId), eq(quoteAlertRules.id, id)));
  return row ? ruleOf(row) : undefined;
}

export async function insertRule(db: DbOrTx, organizationId: string, input: AlertRuleInput, settings: Record<string, number | null>): Promise<AlertRule> {
  const [row] = await db
    .insert(quoteAlertRules)
    .values({ organizationId, ...columnsOf(input, settings) })
    .returning();
  return ruleOf(row!);
}

export async function updateRule(db: DbOrTx, organizationId: string, id: string, input: AlertRuleInput, settings: Record<string, number | null>) {
  const [row] = await db
    .update(quoteAlertRules)
    .set({ ...columnsOf(input, settings), updatedAt: sql`now()` })
    .where(and(eq(quoteAlertRules.organizationId, organizationId), eq(quoteAlertRules.id, id)))
    .returning();
  return row ? ruleOf(row) : undefined;
}

export async function deleteRule(db: DbOrTx, organizationId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(quoteAlertRules)
    .where(and(eq(quoteAlertRules.organizationId, organizationId), eq(quoteAlertRules.id, id)))
    .returning({ id: quoteAlertRules.id });
  return rows.length === 1;
}

/** Every organization's enabled rules, for the monitor (a few hundred at most). */
export async function enabledRules(db: Db): Promise<(AlertRule & { organizationId: string })[]> {
  const rows = await db.select().from(quoteAlertRules).where(eq(quoteAlertRules.enabled, true));
  return rows.map((r) => ({ ...ruleOf(r), organizationId: r.organizationId }));
}

export interface MonitorPlatformRow {
  id: string;
  organizationId: string;
  name: string;
  type: string;
}

/** The enabled platforms with the Quotes Monitor assigned: of one organization, or of all. */
export async function monitorPlatforms(db: DbOrTx, organizationId?: string): Promise<MonitorPlatformRow[]> {
  return db
    .select({ id: tradePlatforms.id, organizationId: tradePlatforms.organizationId, name: tradePlatforms.name, type: tradePlatforms.type })
    .from(tradePlatforms)
    .innerJoin(
      tradePlatformApps,
      and(eq(tradePlatformApps.platformId, tradePlatforms.id), eq(tradePlatformApps.app, "quotesMonitor"), eq(tradePlatformApps.enabled, true)),
    )
    .where(
      organizationId === undefined ? eq(tradePlatforms.enable, true) : and(eq(tradePlatforms.enable, true), eq(tradePlatforms.organizationId, organizationId)),
    )
    .orderBy(asc(tradePlatforms.name));
}

/** A unique-index violation (two rules of one organization with the same name). */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === "23505") return true;
  }
  return false;
}
