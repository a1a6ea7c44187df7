/**
 * The SQL of the hourly e-mail allowance: how many e-mails one organization's notifications may send in an hour (recipients counted:
 * a message to three addresses is three), confirmation requests included:
 * NOTIFICATIONS_MAX_EMAILS_PER_HOUR (docs/notifications.md, "Limits"). Counted in the database, so
 * the limit holds across nodes; the organization's row is locked while counting, so two sends
 * cannot both take the last place.
 */
import { and, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { notificationMailSends } from "../../db/schema.ts";
import { lockForQuota } from "../../quotas.ts";

const m = notificationMailSends;

/** Takes `recipients` e-mails of the organization's hourly allowance: false (nothing taken) when they do not fit. */
export async function takeMailAllowance(db: Db, organizationId: string, recipients: number, perHour: number): Promise<boolean> {
  return db.transaction(async (tx) => {
    await lockForQuota(tx, { organizationId });
    const [row] = await tx
      .select({ sent: sql<number>`coalesce(sum(${m.recipients}), 0)::int` })
      .from(m)
      .where(and(eq(m.organizationId, organizationId), gt(m.sentAt, sql`now() - interval '1 hour'`)));
    if (Number(row?.sent ?? 0) + recipients > perHour) return false;
    await tx.insert(m).values({ organizationId, recipients });
    // The log keeps the last hour only (and a little more): what the limit counts.
    await tx.delete(m).where(and(eq(m.organizationId, organizationId), sql`${m.sentAt} < now() - interval '2 hours'`));
    return true;
  });
}

/** The message a withheld send is logged with. */
export function mailLimitMessage(perHour: number): string {
  return `Not sent: this organization's notifications have sent ${perHour.toLocaleString("en-US")} e-mails in the last hour, the most allowed (NOTIFICATIONS_MAX_EMAILS_PER_HOUR).`;
}
