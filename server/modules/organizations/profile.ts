/** The organization profile: read it, and change its name, currency or default time zone with an audit row. */
import type { OrganizationProfile, OrganizationProfileInput } from "../../../core/schemas/organization.ts";
import type { Db } from "../../db/client.ts";
import { NotFoundError } from "../../errors.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import { readProfile, writeProfile, type ProfileField } from "./profileRepository.ts";

export async function getOrganizationProfile(db: Db, organizationId: string): Promise<OrganizationProfile> {
  const profile = await readProfile(db, organizationId);
  // The guard has checked membership, so only a deletion in between lands here.
  if (!profile) throw new NotFoundError("This organization no longer exists");
  return profile;
}

/**
 * Change the name, currency and/or default time zone, with its `organization.updated` audit row (before and after:
 * the fields sent), in one transaction. The row is locked while read, so two administrators
 * saving at once each audit what they really replaced. Saving what is already there writes
 * nothing and audits nothing.
 */
export async function updateOrganizationProfile(db: Db, actor: Actor, input: OrganizationProfileInput): Promise<OrganizationProfile> {
  return db.transaction(async (tx) => {
    const before = await readProfile(tx, actor.organizationId, true);
    if (!before) throw new NotFoundError("This organization no longer exists");
    const changes: Partial<Record<ProfileField, string>> = {};
    for (const field of ["name", "currency", "timeZone"] as const) {
      const value = input[field];
      if (value !== undefined && value !== before[field]) changes[field] = value;
    }
    const fields = Object.keys(changes) as ProfileField[];
    if (fields.length === 0) return before;
    await writeProfile(tx, actor.organizationId, changes);
    await recordAudit(tx, actor, {
      action: "organization.updated",
      targetType: "organization",
      targetId: actor.organizationId,
      before: Object.fromEntries(fields.map((f) => [f, before[f]])),
      after: changes,
    });
    return { ...before, ...changes };
  });
}
