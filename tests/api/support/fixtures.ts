import { sql } from "drizzle-orm";
import type { AppContext } from "../../../server/context.ts";
import { memberClaims, memberships, tradePlatforms } from "../../../server/db/schema.ts";
import { upsertUser } from "../../../server/modules/organizations/repository.ts";
import type { TestApp } from "../../helpers/testApp.ts";
import { apiHeaders, type Person, type TokenFactory } from "../../helpers/tokens.ts";
import { theOnly } from "../../helpers/db.ts";
import { rowsOf } from "../../../server/db/rows.ts";

/** A person signs in for the first time (preflight) and gets their own organization; returns its id. */
export async function signUp(t: TestApp, tokens: TokenFactory, person: Person): Promise<string> {
  const res = await t.app.inject({ url: "/api/profile/preflight", headers: apiHeaders(await tokens.mint(person)) });
  if (res.statusCode !== 200) throw new Error(`preflight answered ${res.statusCode}: ${res.body}`);
  const id = res.json().createdOrganizationId;
  if (!id) throw new Error("preflight created no organization");
  return id;
}

/** Make `person` a member of an organization, with the given claims there (type → value). */
export async function addMember(ctx: AppContext, organizationId: string, person: Person, claims: Record<string, string> = {}) {
  const { db } = ctx.database;
  await upsertUser(db, person);
  await db.insert(memberships).values({ organizationId, userSub: person.sub });
  for (const [type, value] of Object.entries(claims)) await grant(ctx, organizationId, person, type, value);
}

export async function grant(ctx: AppContext, organizationId: string, person: Person, type: string, value: string) {
  await ctx.database.db
    .insert(memberClaims)
    .values({ organizationId, userSub: person.sub, type, value })
    .onConflictDoUpdate({ target: [memberClaims.organizationId, memberClaims.userSub, memberClaims.type], set: { value } });
}

export async function addTradePlatform(ctx: AppContext, organizationId: string, name: string, type: "MT4" | "MT5" | "MatchTrader" = "MT5") {
  return theOnly(await ctx.database.db.insert(tradePlatforms).values({ organizationId, name, type }).returning());
}

/** Tables the app writes on its own as it runs, whatever a request did: a simulation's state, the copier engine's link leases. */
const SIMULATION_TABLES = new Set(["simulated_servers", "simulated_server_commands", "copy_link_leases"]);

/** Rows in every table of the database (but a running simulation's own), to show that refused calls changed nothing. */
export async function rowCounts(ctx: AppContext): Promise<Record<string, number>> {
  const { db } = ctx.database;
  const tables = rowsOf<{ name: string }>(
    await db.execute(sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`),
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    // A simulated server keeps its own state as it runs (decision 0069), and the copier engine takes
    // each link's lease as it sees the link: not the request's writes.
    if (SIMULATION_TABLES.has(name)) continue;
    const [row] = rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from ${sql.identifier(name)}`));
    counts[name] = row!.n;
  }
  return counts;
}
