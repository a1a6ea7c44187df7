/** The organization profile's SQL: read it (optionally locked for an update) and write its fields. */
import { eq } from "drizzle-orm";
import type { OrganizationProfile } from "../../../core/schemas/organization.ts";
import type { DbOrTx } from "../../db/client.ts";
import { organizations, users } from "../../db/schema.ts";

export type ProfileField = "name" | "currency" | "timeZone";

/** The profile as GET /api/organization answers it; null: no such organization. */
export async function readProfile(db: DbOrTx, organizationId: string, lock = false): Promise<OrganizationProfile | null> {
  const query = db
    .select({
      id: organizations.id,
      name: organizations.name,
      currency: organizations.currency,
      timeZone: organizations.timeZone,
      createdAt: organizations.createdAt,
      createdBySub: organizations.createdBy,
      createdByName: users.name,
    })
    .from(organizations)
    .leftJoin(users, eq(users.sub, organizations.createdBy))
    .where(eq(organizations.id, organizationId));
  const [row] = lock ? await query.for("update", { of: organizations }) : await query;
  if (!row) return null;
  return {
    id: row.id,
    name: row.name,
    currency: row.currency,
    timeZone: row.timeZone,
    createdAt: row.createdAt.toISOString(),
    createdBy: row.createdBySub === null ? null : { sub: row.createdBySub, name: row.createdByName },
  };
}

export async function writeProfile(db: DbOrTx, organizationId: string, changes: Partial<Record<ProfileField, string>>): Promise<void> {
  await db.update(organizations).set(changes).where(eq(organizations.id, organizationId));
}

/** The currency the organization's figures are converted to (USD when the organization is gone). */
export async function organizationCurrency(db: DbOrTx, organizationId: string): Promise<string> {
  const [org] = await db.select({ currency: organizations.currency }).from(organizations).where(eq(organizations.id, organizationId));
  return org?.currency ?? "USD";
}
