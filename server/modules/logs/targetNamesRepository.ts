/**
 * What an audit row's target is called now (platform, trading account, member, customer, API
 * client, organization, invitation, copy link, quote alert rule), so the audit log shows names rather than ids. Read for one
 * page at a time, one query per kind of target, within the organization; a target deleted since
 * has no name (the id stays shown).
 */
import { and, eq, inArray } from "drizzle-orm";
import { isUuid } from "../../../core/ids.ts";
import type { Db } from "../../db/client.ts";
import { apiClients, copyLinks, customers, invitations, organizations, quoteAlertRules, tradePlatforms, users } from "../../db/schema.ts";

interface Target {
  targetType: string;
  targetId: string;
}

const uuids = (ids: string[]) => [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];

/** `type|id` → the target's name, for the rows' targets that still exist. */
export async function targetNames(db: Db, organizationId: string, rows: readonly Target[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const idsOf = (...types: string[]) => rows.filter((r) => types.includes(r.targetType)).map((r) => r.targetId);
  const put = (types: string[], id: string, name: string | null | undefined) => {
    if (name) for (const type of types) names.set(`${type}|${id}`, name);
  };

  // Trading accounts are `platformId/login`: the platform's name and the login.
  const accountIds = idsOf("tradingAccount");
  const platformIds = uuids([...idsOf("tradePlatform"), ...accountIds.map((id) => id.split("/")[0] ?? "")]);
  const people = [...new Set(idsOf("member", "person"))];
  const named = (type: string, table: typeof copyLinks | typeof quoteAlertRules) => {
    const ids = uuids(idsOf(type));
    return ids.length
      ? db
          .select({ id: table.id, name: table.name })
          .from(table)
          .where(and(eq(table.organizationId, organizationId), inArray(table.id, ids)))
      : [];
  };
  const [platforms, persons, clients, customerRows, organizationRows, invitationRows, linkRows, ruleRows] = await Promise.all([
    platformIds.length
      ? db
          .select({ id: tradePlatforms.id, name: tradePlatforms.name })
          .from(tradePlatforms)
          .where(and(eq(tradePlatforms.organizationId, organizationId), inArray(tradePlatforms.id, platformIds)))
      : [],
    people.length ? db.select({ id: users.sub, name: users.name, email: users.email }).from(users).where(inArray(users.sub, people)) : [],
    idsOf("apiClient").length
      ? db
          .select({ id: apiClients.id, name: apiClients.name })
          .from(apiClients)
          .where(and(eq(apiClients.organizationId, organizationId), inArray(apiClients.id, idsOf("apiClient"))))
      : [],
    uuids(idsOf("customer")).length
      ? db
          .select({ id: customers.id, name: customers.name })
          .from(customers)
          .where(and(eq(customers.organizationId, organizationId), inArray(customers.id, uuids(idsOf("customer")))))
      : [],
    idsOf("organization").includes(organizationId)
      ? db.select({ id: organizations.id, name: organizations.name }).from(organizations).where(eq(organizations.id, organizationId))
      : [],
    uuids(idsOf("invitation")).length
      ? db
          .select({ id: invitations.id, name: invitations.email })
          .from(invitations)
          .where(and(eq(invitations.organizationId, organizationId), inArray(invitations.id, uuids(idsOf("invitation")))))
      : [],
    named("copyLink", copyLinks),
    named("quoteAlertRule", quoteAlertRules),
  ]);
  const platformName = new Map(platforms.map((p) => [p.id, p.name]));
  for (const p of platforms) put(["tradePlatform"], p.id, p.name);
  for (const id of accountIds) {
    const [platformId = "", login = ""] = id.split("/");
    const name = platformName.get(platformId.toLowerCase());
    if (name && login) put(["tradingAccount"], id, `${name} · ${login}`);
  }
  for (const p of persons) put(["member", "person"], p.id, p.name ?? p.email);
  for (const c of clients) put(["apiClient"], c.id, c.name);
  for (const c of customerRows) put(["customer"], c.id, c.name);
  for (const o of organizationRows) put(["organization"], o.id, o.name);
  for (const i of invitationRows) put(["invitation"], i.id, i.name);
  for (const l of linkRows) put(["copyLink"], l.id, l.name);
  for (const r of ruleRows) put(["quoteAlertRule"], r.id, r.name);
  return names;
}
