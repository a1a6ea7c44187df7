/**
 * How the accounts list reads the mirror at scale: every sort is an index range (no sort of the
 * organization's accounts), "contains" filters have trigram indexes, the tiebreaker follows the
 * sort's direction with empty values last, platforms are named without a join, and the total of a
 * short page is exact at once. Plans are checked with the planner told to avoid sorts and table
 * scans, so a small test table answers as 100,000 accounts would.
 */
// Databases: PGlite and PostgreSQL (the list's SQL, filters and sorts at scale).
import { sql, type SQLWrapper } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ACCOUNT_SORT_FIELDS } from "../../core/schemas/accountList.ts";
import type { Account } from "../../core/trading/index.ts";
import { pageQuery } from "../../server/modules/accounts/accountListRepository.ts";
import { organizations, tradePlatforms } from "../../server/db/schema.ts";
import { columnsOf } from "../../server/modules/accounts/mirror/rows.ts";
import { accountsMirrorOf } from "../../server/modules/accounts/mirror/plugin.ts";
import { analyzeAccounts, upsertAccounts } from "../../server/modules/accounts/mirror/writeRepository.ts";
import { rowsOf } from "../../server/db/rows.ts";
import { ListAccountsQuerySchema, type AccountRow } from "../../server/modules/accounts/schemas.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { signUp } from "./support/fixtures.ts";

describeDb("accounts list at scale", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const dealer = newPerson("Dealer");
  let org: string;
  const platforms: { id: string; name: string }[] = [];
  /** Each platform's own accounts, as its connector lists them. */
  const accounts = new Map<string, Account[]>();

  async function get(query: string) {
    const res = await t.app.inject({ url: `/api/accounts?${query}`, headers: apiHeaders(await tokens.mint(dealer), org) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ items: AccountRow[]; total: number }>();
  }

  async function everything(query: string): Promise<AccountRow[]> {
    const all: AccountRow[] = [];
    for (let offset = 0; ; offset += 500) {
      const page = await get(`${query}&limit=500&offset=${offset}`);
      all.push(...page.items);
      if (page.items.length < 500) return all;
    }
  }

  /** The plan of a query, with sorts and table scans made a last resort. */
  async function plan(query: SQLWrapper, avoid: string[] = ["enable_sort", "enable_seqscan"]): Promise<string> {
    return t.ctx.database.db.transaction(async (tx) => {
      for (const setting of avoid) await tx.execute(sql.raw(`set local ${setting} = off`));
      const result = await tx.execute(sql`explain ${query}`);
      return rowsOf<Record<string, string>>(result)
        .map((r) => Object.values(r)[0])
        .join("\n");
    });
  }

  const pageQueryFor = (organizationId: string, query: Record<string, string>) =>
    pageQuery(t.ctx.database.db, organizationId, ListAccountsQuerySchema.parse(query));
  const listQuery = (query: Record<string, string>) => pageQueryFor(org, query);

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, dealer);
    for (const [name, count] of [
      ["Alpha MT5", 150],
      ["Beta MT5", 120],
    ] as const) {
      const res = await t.app.inject({
        method: "POST",
        url: "/api/tradePlatforms",
        headers: apiHeaders(await tokens.mint(dealer), org),
        payload: { type: "MT5", name, timeZone: "UTC", connection: { kind: "simulated", accounts: count, tradeRate: 0, seed: count } },
      });
      expect(res.statusCode, res.body).toBe(201);
      platforms.push({ id: res.json().id, name });
      await accountsMirrorOf(t.ctx)!.whenSynced(res.json().id, 30_000);
    }
    // As after a large first sync (the mirror analyzes then): the planner knows the table.
    await t.ctx.database.db.execute(sql`analyze trading_accounts`);
    for (const p of platforms) accounts.set(p.id, (await (await t.app.platforms.connectorFor(org, p.id)).listAccounts({ limit: 1000 })).items);
  }, 60_000);
  afterAll(() => t?.close());

  it("reads every sort field, either way, in order from an index", async () => {
    for (const sort of ACCOUNT_SORT_FIELDS.filter((f) => f !== "platformName" && f !== "platformType")) {
      for (const dir of ["asc", "desc"]) {
        const text = await plan(await listQuery({ sort, dir }));
        expect(text, `${sort} ${dir}`).toMatch(/Index Scan/);
        expect(text, `${sort} ${dir}`).not.toMatch(/Sort/);
      }
    }
  });

  it("finds 'name contains' and 'e-mail contains' through trigram indexes", async () => {
    // An organization with enough accounts that an index beats reading them all, and searches
    // that match a few of them.
    const { db } = t.ctx.database;
    const [bulkOrg] = await db.insert(organizations).values({ name: "Bulk Brokers" }).returning();
    const [bulkPlatform] = await db.insert(tradePlatforms).values({ organizationId: bulkOrg!.id, type: "MT5", name: "Bulk", enable: false }).returning();
    const first = ["Anna", "Boris", "Chen", "Dina", "Emil", "Fatima", "Goran", "Hana", "Ivo", "Jana", "Karl", "Lena", "Milan", "Nora", "Omar"];
    const template = columnsOf(accounts.get(platforms[0]!.id)![0]!);
    const rows = Array.from({ length: 6000 }, (_, i) => ({
      ...template,
      login: String(500_000 + i),
      name: `${first[i % first.length]} Client${i}`,
      email: `c${i}@mail.test`,
    }));
    for (let i = 0; i < rows.length; i += 1000) await upsertAccounts(db, { id: bulkPlatform!.id, organizationId: bulkOrg!.id }, rows.slice(i, i + 1000));
    await analyzeAccounts(db); // as the mirror does after a large load
    const count = async (filter: Record<string, string>) =>
      plan(sql`select count(*) from (${await pageQueryFor(bulkOrg!.id, { ...filter, limit: "500" })}) page`, ["enable_seqscan"]);
    expect(await count({ name: "client123" })).toMatch(/Bitmap Index Scan on trading_accounts_name_trgm_idx/);
    expect(await count({ email: "c4321@" })).toMatch(/Bitmap Index Scan on trading_accounts_email_trgm_idx/);
    // And the list finds the same accounts as a plain scan would.
    const named = (await everything("name=ann&sort=login")).map((r) => `${r.platformId}/${r.login}`);
    const expected = [...accounts].flatMap(([id, list]) => list.filter((a) => a.name.toLowerCase().includes("ann")).map((a) => `${id}/${a.login}`));
    expect(named.sort()).toEqual(expected.sort());
  });

  it("breaks ties in the sort's direction, numeric login order, empty values last both ways", async () => {
    const key = (r: AccountRow) => [r.leverage, r.platformId, r.login.length, r.login] as const;
    const compare = (a: readonly (string | number)[], b: readonly (string | number)[]) => {
      for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
      return 0;
    };
    const asc = await everything("sort=leverage&dir=asc");
    expect(asc).toHaveLength(270);
    expect(asc.map(key)).toEqual(asc.map(key).sort(compare));
    const desc = await everything("sort=leverage&dir=desc");
    expect(desc.map(key)).toEqual(desc.map(key).sort((a, b) => compare(b, a)));

    for (const dir of ["asc", "desc"]) {
      const levels = (await everything(`sort=marginLevel&dir=${dir}`)).map((r) => r.marginLevel);
      const filled = levels.filter((l) => l !== null).map(Number);
      expect(filled.length).toBeGreaterThan(0);
      expect(
        levels.slice(filled.length).every((l) => l === null),
        `${dir}: empty levels last`,
      ).toBe(true);
      expect(filled).toEqual([...filled].sort((a, b) => (dir === "asc" ? a - b : b - a)));
    }
  });

  it("names each row's platform, sorts by platform name through its table, and writes times as ISO UTC", async () => {
    const rows = await everything("sort=login");
    const byId = new Map(platforms.map((p) => [p.id, p.name]));
    expect(rows.every((r) => r.platformName === byId.get(r.platformId) && r.platformType === "MT5")).toBe(true);
    const first = (await get("sort=platformName&dir=asc&limit=1")).items[0]!;
    const last = (await get("sort=platformName&dir=desc&limit=1")).items[0]!;
    expect([first.platformName, last.platformName]).toEqual(["Alpha MT5", "Beta MT5"]);

    for (const row of rows.slice(0, 20)) {
      const account = accounts.get(row.platformId)!.find((a) => a.login === row.login)!;
      expect(row.registration).toBe(new Date(account.registration).toISOString());
      expect(row.lastAccess).toBe(account.lastAccess === null ? null : new Date(account.lastAccess).toISOString());
    }
    expect(rows.every((r) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(r.registration))).toBe(true);
  });

  it("answers from a statement prepared per query shape with the rows of the page's literal statement, every time", async () => {
    // The route runs one prepared statement per shape (sort, direction, which filters), its
    // values bound: after five runs PostgreSQL may plan it generically. Each shape, run six times,
    // must give the rows the literal statement (values written in, groups as an `in` list) gives.
    const [alpha] = platforms;
    const someGroup = accounts.get(alpha!.id)![0]!.group;
    const shapes: Record<string, string>[] = [
      { groupMask: "real*", balanceMin: "5000", sort: "equity", dir: "desc", limit: "100" },
      { groupMask: `${someGroup},!*demo*`, sort: "balance", dir: "asc", limit: "40" },
      { groupMask: "no-such-group*", sort: "equity", dir: "desc" },
      { login: "1*", sort: "login", dir: "asc", limit: "30" },
      { name: "a", email: "e", sort: "name", dir: "desc", limit: "25" },
      { equityMin: "100", equityMax: "1000000", balanceMax: "900000", sort: "margin", dir: "desc", limit: "50", offset: "20" },
      { platformId: alpha!.id, sort: "platformName", dir: "asc", limit: "60" },
      { sort: "login", dir: "asc", limit: "50", offset: "50" },
    ];
    const key = (r: Record<string, unknown>) =>
      [r.platformId ?? r.platform_id, r.login, r.group, r.name, r.balance, r.equity, r.margin, r.registration, r.lastAccess ?? r.last_access].join("|");
    for (const shape of shapes) {
      const literal = rowsOf<Record<string, unknown>>(await t.ctx.database.db.execute(await listQuery(shape))).map(key);
      for (let run = 0; run < 6; run++) {
        const page = await get(new URLSearchParams(shape).toString());
        expect(
          page.items.map((r) => key(r as unknown as Record<string, unknown>)),
          `${JSON.stringify(shape)} run ${run + 1}`,
        ).toEqual(literal);
      }
    }
  });

  it("gives a short page's total exactly, at once after a change, without counting", async () => {
    expect((await get("limit=500")).total).toBe(270);
    const gone = accounts.get(platforms[0]!.id)![0]!.login;
    await t.ctx.database.db.execute(
      sql`delete from trading_accounts where organization_id = ${org}::uuid and login = ${gone} and platform_id = ${platforms[0]!.id}::uuid`,
    );
    const after = await get("limit=500");
    expect(after.total).toBe(269);
    expect(after.items).toHaveLength(269);
    // A later page that ends the list is exact too.
    expect((await get("limit=100&offset=200")).total).toBe(269);
  });
});
