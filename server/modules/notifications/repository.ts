/** The SQL of the inbox, the notification settings, channels and the delivery log. */
import { and, count, desc, eq, inArray, isNull, isNotNull, lt, or, sql, type SQL } from "drizzle-orm";
import {
  DEFAULT_RULE,
  NotificationRulesSchema,
  type InboxFilter,
  type NotificationRule,
  type NotificationSettings,
  type NotificationType,
} from "../../../core/schemas/notifications.ts";
import { ADMIN_CLAIM } from "../../../core/access.ts";
import type { Db, DbOrTx } from "../../db/client.ts";
import { memberClaims, memberships, notificationChannels, notificationDeliveries, notifications, notificationSettings } from "../../db/schema.ts";
import { InvalidRequestError } from "../../errors.ts";

export type NotificationRow = typeof notifications.$inferSelect;
export type ChannelRow = typeof notificationChannels.$inferSelect;
export type DeliveryRow = typeof notificationDeliveries.$inferSelect;

export const DEFAULT_RETENTION_DAYS = 90;

export async function getSettings(db: DbOrTx, organizationId: string): Promise<NotificationSettings> {
  const [row] = await db.select().from(notificationSettings).where(eq(notificationSettings.organizationId, organizationId));
  if (!row) return { retentionDays: DEFAULT_RETENTION_DAYS, largeBalanceThreshold: null, rules: {} };
  const rules = NotificationRulesSchema.safeParse(row.rules);
  return { retentionDays: row.retentionDays, largeBalanceThreshold: row.largeBalanceThreshold, rules: rules.success ? rules.data : {} };
}

export async function putSettings(db: DbOrTx, organizationId: string, settings: NotificationSettings): Promise<void> {
  const values = {
    retentionDays: settings.retentionDays,
    largeBalanceThreshold: settings.largeBalanceThreshold,
    rules: settings.rules,
    updatedAt: new Date(),
  };
  await db
    .insert(notificationSettings)
    .values({ organizationId, ...values })
    .onConflictDoUpdate({ target: notificationSettings.organizationId, set: values });
}

export function ruleOf(settings: NotificationSettings, type: NotificationType): NotificationRule {
  return settings.rules[type] ?? DEFAULT_RULE;
}

/** The members whose inbox a rule names (members of the organization only). */
export async function recipientsOf(db: Db, organizationId: string, members: NotificationRule["members"]): Promise<string[]> {
  if (members === "admins") {
    const rows = await db
      .select({ sub: memberClaims.userSub })
      .from(memberClaims)
      .where(and(eq(memberClaims.organizationId, organizationId), eq(memberClaims.type, ADMIN_CLAIM), eq(memberClaims.value, organizationId)));
    return rows.map((r) => r.sub);
  }
  const where: SQL[] = [eq(memberships.organizationId, organizationId)];
  if (members !== "all") {
    if (members.length === 0) return [];
    where.push(inArray(memberships.userSub, members));
  }
  const rows = await db
    .select({ sub: memberships.userSub })
    .from(memberships)
    .where(and(...where));
  return rows.map((r) => r.sub);
}

export interface NewNotification {
  type: NotificationType;
  severity: string;
  title: string;
  body: string;
  link: string | null;
  dedupeKey: string;
}

/** One row per recipient; an event seen twice (another node, a replay) adds nothing. Returns who got a new one. */
export async function insertNotifications(db: Db, organizationId: string, subs: string[], n: NewNotification): Promise<string[]> {
  if (subs.length === 0) return [];
  const rows = await db
    .insert(notifications)
    .values(subs.map((userSub) => ({ organizationId, userSub, ...n })))
    .onConflictDoNothing()
    .returning({ sub: notifications.userSub });
  return rows.map((r) => r.sub);
}

interface Owner {
  organizationId: string;
  userSub: string;
}

const ownedBy = (o: Owner) => and(eq(notifications.organizationId, o.organizationId), eq(notifications.userSub, o.userSub));

/** The cursor of a page: the last row's time and id. */
export function cursorOf(row: Pick<NotificationRow, "createdAt" | "id">): string {
  return Buffer.from(`${row.createdAt.toISOString()}|${row.id}`).toString("base64url");
}

function readCursor(text: string): { at: Date; id: string } {
  const [at, id] = Buffer.from(text, "base64url").toString().split("|");
  const date = new Date(at ?? "");
  if (!id || Number.isNaN(date.getTime()) || !/^[0-9a-f-]{36}$/i.test(id)) throw new InvalidRequestError("before must be the `next` of a previous page");
  return { at: date, id };
}

export async function listInbox(db: Db, owner: Owner, query: InboxFilter) {
  const where: (SQL | undefined)[] = [ownedBy(owner)];
  if (query.status === "unread") where.push(isNull(notifications.readAt));
  if (query.status === "read") where.push(isNotNull(notifications.readAt));
  if (query.severity) where.push(eq(notifications.severity, query.severity));
  if (query.type) where.push(eq(notifications.type, query.type));
  if (query.before) {
    const c = readCursor(query.before);
    where.push(or(lt(notifications.createdAt, c.at), and(eq(notifications.createdAt, c.at), lt(notifications.id, c.id))));
  }
  const rows = await db
    .select()
    .from(notifications)
    .where(and(...where))
    .orderBy(desc(notifications.createdAt), desc(notifications.id))
    .limit(query.limit + 1);
  const more = rows.length > query.limit;
  const page = rows.slice(0, query.limit);
  return { rows: page, next: more ? cursorOf(page[page.length - 1]!) : null };
}

export async function unreadCount(db: Db, owner: Owner): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(notifications)
    .where(and(ownedBy(owner), isNull(notifications.readAt)));
  return Number(row?.n ?? 0);
}

/** Marks one of the member's notifications read; false when it is not theirs (or does not exist). */
export async function markRead(db: Db, owner: Owner, id: string): Promise<NotificationRow | undefined> {
  const [row] = await db
    .update(notifications)
    .set({ readAt: sql`coalesce(${notifications.readAt}, now())` })
    .where(and(ownedBy(owner), eq(notifications.id, id)))
    .returning();
  return row;
}

export async function markAllRead(db: Db, owner: Owner): Promise<number> {
  const rows = await db
    .update(notifications)
    .set({ readAt: sql`now()` })
    .where(and(ownedBy(owner), isNull(notifications.readAt)))
    .returning({ id: notifications.id });
  return rows.length;
}

/** Drops notifications (and delivery log rows) older than each organization's retention. */
export async function sweepRetention(db: Db, organizationId?: string): Promise<number> {
  const days = sql`coalesce((select ${notificationSettings.retentionDays} from ${notificationSettings} where ${notificationSettings.organizationId} = ${notifications.organizationId}), ${DEFAULT_RETENTION_DAYS})`;
  const removed = await db
    .delete(notifications)
    .where(
      and(
        sql`${notifications.createdAt} < now() - make_interval(days => ${days})`,
        organizationId ? eq(notifications.organizationId, organizationId) : undefined,
      ),
    )
    .returning({ id: notifications.id });
  const deliveryDays = sql`coalesce((select ${notificationSettings.retentionDays} from ${notificationSettings} where ${notificationSettings.organizationId} = ${notificationDeliveries.organizationId}), ${DEFAULT_RETENTION_DAYS})`;
  await db
    .delete(notificationDeliveries)
    .where(
      and(
        sql`${notificationDeliveries.createdAt} < now() - make_interval(days => ${deliveryDays})`,
        organizationId ? eq(notificationDeliveries.organizationId, organizationId) : undefined,
      ),
    );
  return removed.length;
}

// Channels

export async function listChannels(db: DbOrTx, organizationId: string): Promise<ChannelRow[]> {
  return db.select().from(notificationChannels).where(eq(notificationChannels.organizationId, organizationId)).orderBy(notificationChannels.createdAt);
}

export async function findChannel(db: DbOrTx, organizationId: string, id: string): Promise<ChannelRow | undefined> {
  const [row] = await db
    .select()
    .from(notificationChannels)
    .where(and(eq(notificationChannels.organizationId, organizationId), eq(notificationChannels.id, id)));
  return row;
}

export type ChannelChanges = Partial<typeof notificationChannels.$inferInsert>;

export async function insertChannel(
  db: DbOrTx,
  values: Pick<typeof notificationChannels.$inferInsert, "organizationId" | "kind" | "name" | "enabled" | "settings">,
): Promise<ChannelRow> {
  const [row] = await db.insert(notificationChannels).values(values).returning();
  return row!;
}

export async function setChannel(db: DbOrTx, id: string, changes: ChannelChanges): Promise<ChannelRow | undefined> {
  const [row] = await db.update(notificationChannels).set(changes).where(eq(notificationChannels.id, id)).returning();
  return row;
}

export async function removeChannel(db: DbOrTx, id: string): Promise<void> {
  await db.delete(notificationChannels).where(eq(notificationChannels.id, id));
}

export async function listDeliveries(db: Db, channelId: string, limit = 100): Promise<DeliveryRow[]> {
  return db
    .select()
    .from(notificationDeliveries)
    .where(eq(notificationDeliveries.channelId, channelId))
    .orderBy(desc(notificationDeliveries.createdAt), desc(notificationDeliveries.id))
    .limit(limit);
}
