/**
 * The SQL the notification center runs besides the inbox (./repository.ts): channels by id, the
 * failure count that switches a channel off, the log row of a "Send test", and the platform a
 * notice names.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { notificationChannels, notificationDeliveries, tradePlatforms, tradingAccounts } from "../../db/schema.ts";
import type { ChannelRow } from "./repository.ts";

export async function channelById(db: Db, id: string): Promise<ChannelRow | undefined> {
  return (await db.select().from(notificationChannels).where(eq(notificationChannels.id, id)))[0];
}

/** Every channel of the organization (enabled or not: the caller applies the rule). */
export async function channelsOf(db: Db, organizationId: string): Promise<ChannelRow[]> {
  return db.select().from(notificationChannels).where(eq(notificationChannels.organizationId, organizationId));
}

/** A delivery went through: the channel's run of failures ends. */
export async function resetChannelFailures(db: Db, channelId: string): Promise<void> {
  await db.update(notificationChannels).set({ consecutiveFailures: 0 }).where(eq(notificationChannels.id, channelId));
}

/** One more failure in a row; returns the channel as it now stands. */
export async function countChannelFailure(db: Db, channelId: string): Promise<ChannelRow | undefined> {
  const [row] = await db
    .update(notificationChannels)
    .set({ consecutiveFailures: sql`${notificationChannels.consecutiveFailures} + 1` })
    .where(eq(notificationChannels.id, channelId))
    .returning();
  return row;
}

/** Switches an enabled channel off; false when it already was (another node got there first). */
export async function disableChannel(db: Db, channelId: string, reason: string): Promise<boolean> {
  const [disabled] = await db
    .update(notificationChannels)
    .set({ enabled: false, disabledReason: reason, updatedAt: new Date() })
    .where(and(eq(notificationChannels.id, channelId), eq(notificationChannels.enabled, true)))
    .returning({ id: notificationChannels.id });
  return disabled !== undefined;
}

/** The delivery log row of a test send, before it is tried. */
export async function openTestDelivery(db: Db, channel: Pick<ChannelRow, "id" | "organizationId">): Promise<{ id: string; createdAt: Date }> {
  const [delivery] = await db
    .insert(notificationDeliveries)
    .values({ organizationId: channel.organizationId, channelId: channel.id, type: "test", status: "pending" })
    .returning({ id: notificationDeliveries.id, createdAt: notificationDeliveries.createdAt });
  return delivery!;
}

export type TestOutcome = { status: "delivered"; lastStatus: number | null } | { status: "failed"; lastStatus: number | null; lastError: string };

/** The test send's one try, written to its log row. */
export async function closeTestDelivery(db: Db, deliveryId: string, outcome: TestOutcome): Promise<void> {
  await db
    .update(notificationDeliveries)
    .set({ ...outcome, attempts: 1, updatedAt: new Date() })
    .where(eq(notificationDeliveries.id, deliveryId));
}

/** A platform's name and kind, for a notice's words and link (any organization: the bus follower's view). */
export async function platformById(db: Db, platformId: string) {
  const [row] = await db
    .select({ organizationId: tradePlatforms.organizationId, name: tradePlatforms.name, type: tradePlatforms.type })
    .from(tradePlatforms)
    .where(eq(tradePlatforms.id, platformId));
  return row;
}

/** A platform's name and kind, only if it is the organization's. */
export async function platformOf(db: Db, organizationId: string, platformId: string) {
  const [row] = await db
    .select({ name: tradePlatforms.name, type: tradePlatforms.type })
    .from(tradePlatforms)
    .where(and(eq(tradePlatforms.id, platformId), eq(tradePlatforms.organizationId, organizationId)));
  return row;
}

/** The currency of a trading account as the mirror holds it; null when the mirror does not have it. */
export async function accountCurrencyOf(db: Db, organizationId: string, platformId: string, login: string): Promise<string | null> {
  const [row] = await db
    .select({ currency: tradingAccounts.currency })
    .from(tradingAccounts)
    .where(and(eq(tradingAccounts.organizationId, organizationId), eq(tradingAccounts.platformId, platformId), eq(tradingAccounts.login, login)));
  return row?.currency ?? null;
}
