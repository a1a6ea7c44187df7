import { eq } from "drizzle-orm";
import { NO_POLICY, type SecurityPolicy } from "../../../core/securityPolicy.ts";
import type { Db } from "../../db/client.ts";
import { transactionWithRetry } from "../../db/retry.ts";
import { organizationSecurity } from "../../db/schema.ts";
import { recordAudit, type Actor } from "../audit/record.ts";

export interface StoredPolicy extends SecurityPolicy {
  updatedAt: Date | null;
}

function fromRow(row: typeof organizationSecurity.$inferSelect | undefined): StoredPolicy {
  if (!row) return { ...NO_POLICY, updatedAt: null };
  return {
    requireTwoFactor: row.requireTwoFactor,
    sessionLifetimeSeconds: row.sessionLifetimeSeconds,
    allowedIpRanges: row.allowedIpRanges,
    updatedAt: row.updatedAt,
  };
}

export async function getPolicy(db: Db, organizationId: string): Promise<StoredPolicy> {
  const [row] = await db.select().from(organizationSecurity).where(eq(organizationSecurity.organizationId, organizationId));
  return fromRow(row);
}

const plain = (p: SecurityPolicy) => ({
  requireTwoFactor: p.requireTwoFactor,
  sessionLifetimeSeconds: p.sessionLifetimeSeconds,
  allowedIpRanges: [...p.allowedIpRanges],
});

/**
 * Saves the policy with its audit record, in one transaction (the row lock orders two
 * administrators saving at once). The database announces the change to every node (trigger of
 * migration 0009). Returns what was there before and what is there now.
 */
export async function savePolicy(db: Db, actor: Actor, policy: SecurityPolicy): Promise<{ before: StoredPolicy; after: StoredPolicy }> {
  return transactionWithRetry(db, async (tx) => {
    const [old] = await tx.select().from(organizationSecurity).where(eq(organizationSecurity.organizationId, actor.organizationId)).for("update");
    const before = fromRow(old);
    const values = { ...plain(policy), updatedAt: new Date(), updatedBy: actor.sub };
    const [row] = await tx
      .insert(organizationSecurity)
      .values({ organizationId: actor.organizationId, ...values })
      .onConflictDoUpdate({ target: organizationSecurity.organizationId, set: values })
      .returning();
    const after = fromRow(row);
    await recordAudit(tx, actor, {
      action: "organization.securityChanged",
      targetType: "organization",
      targetId: actor.organizationId,
      before: plain(before),
      after: plain(after),
    });
    return { before, after };
  });
}
