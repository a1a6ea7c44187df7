/**
 * /api/accounts against a simulated MT5 server connected through the platforms API: the list's
 * filters, sorts and paging (checked against the platform's own data and core/trading/mask.ts),
 * detail tabs, changes with their audit records, permissions, and another organization's reach.
 */
import { and, eq, like, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ACCOUNT_SORT_FIELDS, type AccountSortField } from "../../core/schemas/accountList.ts";
import { compileMask, moneyToDecimal, type Account } from "../../core/trading/index.ts";
import { accountsMirrorOf } from "../../server/modules/accounts/mirror/plugin.ts";
import { rowsOf } from "../../server/db/rows.ts";
import { auditEvents, tradePlatforms, tradingAccounts } from "../../server/db/schema.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

describeDb("/api/accounts", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const dealer = newPerson("Dealer");
  const viewer = newPerson("Viewer");
  const writer = newPerson("Writer");
  const outsider = newPerson("Outsider");
  let org: string;
  let otherOrg: string;
  let platformId: string;
  let otherPlatformId: string;
  /** The platform's own accounts, as the connector lists them. */
  let accounts: Account[];

  async function call(person: Person, organizationId: string, method: "GET" | "POST" | "PATCH", url: string, payload?: unknown) {
    const res = await t.app.inject({
      method,
      url,
      headers: apiHeaders(await tokens.mint(person), organizationId),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: res.statusCode, body: res.body ? res.json() : undefined };
  }
  const get = (url: string, person = dealer, organizationId = org) => call(person, organizationId, "GET", url);

  async function connectSimulated(person: Person, organizationId: string, name: string, accountsCount: number) {
    const res = await call(person, organizationId, "POST", "/api/tradePlatforms", {
      type: "MT5",
      name,
      timeZone: "UTC",
      connection: { kind: "simulated", accounts: accountsCount, tradeRate: 0, seed: 11 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await accountsMirrorOf(t.ctx)!.whenSynced(res.body.id, 30_000);
    return res.body.id as string;
  }

  async function connector(platform = platformId, organizationId = org) {
    return t.app.platforms.connectorFor(organizationId, platform);
  }

  async function everything(query: string): Promise<{ login: string; group: string; [k: string]: unknown }[]> {
    const all = [];
    for (let offset = 0; ; offset += 500) {
      const res = await get(`/api/accounts?${query}&limit=500&offset=${offset}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      all.push(...res.body.items);
      if (res.body.items.length < 500) return all;
    }
  }

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, dealer);
    otherOrg = await signUp(t, tokens, outsider);
    await addMember(t.ctx, org, viewer, { [`Module.users.${org}`]: "read" });
    await addMember(t.ctx, org, writer, { [`Module.users.${org}`]: "read,write" });
    platformId = await connectSimulated(dealer, org, "Sim MT5", 600);
    otherPlatformId = await connectSimulated(outsider, otherOrg, "Other MT5", 50);
    const c = await connector();
    accounts = [];
    for (let cursor: string | null | undefined; ;) {
      const page = await c.listAccounts({ cursor, limit: 1000 });
      accounts.push(...page.items);
      if (!(cursor = page.nextCursor)) break;
    }
  }, 60_000);
  afterAll(() => t?.close());

  it("lists the organization's accounts with their platform, money as decimal strings", async () => {
    const res = await get("/api/accounts?limit=5");
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(600);
    expect(res.body.items).toHaveLength(5);
    const row = res.body.items[0];
    const account = accounts.find((a) => a.login === row.login)!;
    expect(row).toMatchObject({
      platformId,
      platformName: "Sim MT5",
      platformType: "MT5",
      group: account.group,
      balance: moneyToDecimal(account.balance),
      credit: moneyToDecimal(account.credit),
      leverage: account.leverage,
      enabled: account.enabled,
    });
    expect(row.balance).toMatch(/^-?\d+\.\d{2}$/);
    // Logins in numeric order by default.
    const logins = res.body.items.map((r: { login: string }) => Number(r.login));
    expect(logins).toEqual([...logins].sort((a, b) => a - b));
    // The other organization's accounts are not in it.
    expect((await everything("sort=login")).every((r) => r.platformId === platformId)).toBe(true);
  });

  it("filters by group mask exactly as the platforms do (*, !, case, literal % and _)", async () => {
    const masks = ["real*", "REAL*", "*,!demo*", "!*pro*", "demo\\retail*", "demo\\retail-usd,real\\*", "*-usd,!real*", "%", "_emo*", "demo\\pro_usd"];
    for (const mask of masks) {
      const matches = compileMask(mask);
      const expected = accounts
        .filter((a) => matches(a.group))
        .map((a) => a.login)
        .sort();
      const rows = await everything(`groupMask=${encodeURIComponent(mask)}`);
      expect(rows.map((r) => r.login).sort(), `mask ${mask}`).toEqual(expected);
    }
  });

  it("filters by login (exact or prefix), name and e-mail (contains, any case), balance and equity ranges", async () => {
    const sample = accounts[17]!;
    expect((await everything(`login=${sample.login}`)).map((r) => r.login)).toEqual([sample.login]);
    const prefix = sample.login.slice(0, -1);
    expect((await everything(`login=${prefix}*`)).map((r) => r.login).sort()).toEqual(
      accounts
        .filter((a) => a.login.startsWith(prefix))
        .map((a) => a.login)
        .sort(),
    );

    const lastName = sample.name.split(" ")[1]!.toUpperCase();
    expect((await everything(`name=${lastName}`)).map((r) => r.login).sort()).toEqual(
      accounts
        .filter((a) => a.name.toUpperCase().includes(lastName))
        .map((a) => a.login)
        .sort(),
    );
    expect((await everything(`email=${sample.login}@EXAMPLE`)).map((r) => r.login)).toEqual([sample.login]);

    const within = (v: number, min: number, max: number) => v >= min && v <= max;
    expect((await everything("balanceMin=5000&balanceMax=25000.00")).map((r) => r.login).sort()).toEqual(
      accounts
        .filter((a) => within(a.balance, 500_000, 2_500_000))
        .map((a) => a.login)
        .sort(),
    );
    const equityRows = await everything("equityMin=10000.5");
    for (const r of equityRows) expect(Number(r.equity)).toBeGreaterThanOrEqual(10000.5);
    const mirrored = await t.ctx.database.db.select({ equity: tradingAccounts.equity }).from(tradingAccounts).where(eq(tradingAccounts.platformId, platformId));
    expect(equityRows).toHaveLength(mirrored.filter((m) => Number(m.equity) >= 10000.5).length);

    // Filters combine; a filter that matches nothing is an empty page, not an error.
    const combined = await get(`/api/accounts?groupMask=real*&balanceMin=10000&platformId=${platformId}`);
    expect(combined.body.total).toBe(accounts.filter((a) => a.group.startsWith("real") && a.balance >= 1_000_000).length);
    const none = await get(`/api/accounts?name=${encodeURIComponent("'; drop table trading_accounts; --")}`);
    expect(none.body).toEqual({ items: [], total: 0 });
    expect((await get("/api/accounts?limit=1")).body.total).toBe(600);
    // A platform of another organization filters to nothing.
    expect((await get(`/api/accounts?platformId=${otherPlatformId}`)).body).toEqual({ items: [], total: 0 });
  });

  it("sorts a synced platform's accounts by equity and pages through the whole list without gaps or repeats", async () => {
    const byEquity = await everything("sort=equity&dir=desc");
    const equities = byEquity.map((r) => Number(r.equity));
    expect(equities).toEqual([...equities].sort((a, b) => b - a));

    const pages = [];
    for (let offset = 0; offset < 600; offset += 70) {
      const res = await get(`/api/accounts?sort=group&dir=asc&limit=70&offset=${offset}`);
      expect(res.body.total).toBe(600);
      pages.push(...res.body.items.map((r: { login: string }) => r.login));
    }
    expect(pages).toHaveLength(600);
    expect(new Set(pages).size).toBe(600);
  });

  it("orders by every sort field, ascending and descending, empty values last, ties by platform and login", async () => {
    // An organization of its own whose mirror rows are written here, with values drawn so that no
    // two sort fields (nor the tie-break alone) order them alike: a sort on the wrong column fails.
    const sorter = newPerson("Sorter");
    const sortOrg = await signUp(t, tokens, sorter);
    const { db } = t.ctx.database;
    // Id, name and type orders all differ (whatever the collation puts first of MT5 and MatchTrader).
    const platforms = [
      { id: "00000000-0000-4000-8000-000000000001", type: "MT5", name: "Bravo" },
      { id: "00000000-0000-4000-8000-000000000002", type: "MatchTrader", name: "Alpha" },
      { id: "00000000-0000-4000-8000-000000000003", type: "MT4", name: "Charlie" },
    ] as const;
    // Disabled: no connector runs for them, so nothing but this test writes their rows.
    await db.insert(tradePlatforms).values(platforms.map((p) => ({ ...p, organizationId: sortOrg, enable: false })));

    let seed = 20240611;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
    // Amounts of one to nine digits, some negative: text order and numeric order differ.
    const amount = () => ((Math.floor((random() - 0.2) * 10 ** (1 + Math.floor(random() * 7))) * 100 + Math.floor(random() * 100)) / 100).toFixed(2);
    const time = () => new Date(Date.UTC(2024, 0, 1) + Math.floor(random() * 400 * 86_400_000));
    const logins = new Set<string>();
    const rows = Array.from({ length: 18 }, (_, i) => {
      const platform = platforms[i % 3]!;
      let login: string;
      do
        login = String(Math.floor(random() * 10 ** (1 + Math.floor(random() * 5)))); // 1 to 5 digits
      while (logins.has(login));
      logins.add(login);
      return {
        organizationId: sortOrg,
        platformId: platform.id,
        platformName: platform.name,
        platformType: platform.type,
        login,
        group: pick(["real\\retail-usd", "real\\pro-eur", "demo\\retail-usd", "demo\\vip", "Real\\B"]),
        name: `${pick(["Anna", "ben", "Carla", "Élodie", "Zoe"])} ${pick(["Adams", "Becker", "de Vries", "Okafor"])}`,
        email: `${pick(["zed", "amy", "Bob", "carl.o"])}${i}@${pick(["example.com", "mail.test"])}`,
        leverage: pick([1, 50, 100, 200, 500, 1000]),
        currency: pick(["USD", "EUR", "JPY", "usd"]),
        balance: amount(),
        credit: amount(),
        equity: amount(),
        margin: amount(),
        freeMargin: amount(),
        marginLevel: random() < 0.3 ? null : amount(),
        marginState: pick(["ok", "marginCall", "stopOut"] as const),
        enabled: random() < 0.6,
        readOnly: random() < 0.4,
        registration: time(),
        lastAccess: random() < 0.3 ? null : time(),
      };
    });
    await db.insert(tradingAccounts).values(rows.map(({ platformName: _n, platformType: _t, ...row }) => row));

    // Text columns order as the database's collation says: ask it, for these values alone.
    const texts = [...new Set(rows.flatMap((r) => [r.platformName, r.platformType, r.group, r.name, r.email, r.currency, r.marginState]))];
    const collated = rowsOf<{ v: string }>(
      await db.execute(
        sql`select v from unnest(array[${sql.join(
          texts.map((v) => sql`${v}`),
          sql`, `,
        )}]::text[]) as v order by v`,
      ),
    ).map((r) => r.v);
    const text = (v: string) => collated.indexOf(v);
    type Row = (typeof rows)[number];
    const keyOf: Record<AccountSortField, (r: Row) => number | string | null> = {
      platformId: (r) => r.platformId,
      platformName: (r) => text(r.platformName),
      platformType: (r) => text(r.platformType),
      login: (r) => r.login.padStart(10, "0"), // numeric logins as numbers
      group: (r) => text(r.group),
      name: (r) => text(r.name),
      email: (r) => text(r.email),
      leverage: (r) => r.leverage,
      currency: (r) => text(r.currency),
      balance: (r) => Number(r.balance),
      credit: (r) => Number(r.credit),
      equity: (r) => Number(r.equity),
      margin: (r) => Number(r.margin),
      freeMargin: (r) => Number(r.freeMargin),
      marginLevel: (r) => (r.marginLevel === null ? null : Number(r.marginLevel)),
      marginState: (r) => text(r.marginState),
      enabled: (r) => Number(r.enabled),
      readOnly: (r) => Number(r.readOnly),
      registration: (r) => r.registration.getTime(),
      lastAccess: (r) => r.lastAccess?.getTime() ?? null,
    };
    const compare = (a: number | string | null, b: number | string | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);
    const tieBreak = (a: Row, b: Row) => compare(a.platformId, b.platformId) || compare(keyOf.login(a), keyOf.login(b));
    const expected = (field: AccountSortField, dir: "asc" | "desc") =>
      [...rows]
        .sort((a, b) => {
          const [x, y] = [keyOf[field](a), keyOf[field](b)];
          // Empty values last in both directions.
          const primary = x === null || y === null ? compare(x, y) : (dir === "asc" ? 1 : -1) * compare(x, y);
          // Ties follow the sort's direction (one index serves both ways: decision 0034).
          return primary || (dir === "asc" ? 1 : -1) * tieBreak(a, b);
        })
        .map((r) => `${r.platformId}/${r.login}`);

    for (const dir of ["asc", "desc"] as const) {
      // The data can tell the fields apart: no field orders the rows like another (platformId asc
      // is the tie-break order, so a sort that ignores its field is told apart too).
      const fieldByOrder = new Map<string, string>();
      for (const field of ACCOUNT_SORT_FIELDS) {
        const order = expected(field, dir).join();
        expect(fieldByOrder.get(order), `${field} ${dir} orders the test data like another field`).toBeUndefined();
        fieldByOrder.set(order, field);
      }

      for (const field of ACCOUNT_SORT_FIELDS) {
        const res = await call(sorter, sortOrg, "GET", `/api/accounts?sort=${field}&dir=${dir}&limit=500`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const listed = res.body.items.map((r: { platformId: string; login: string }) => `${r.platformId}/${r.login}`);
        expect(listed, `sort=${field}&dir=${dir}`).toEqual(expected(field, dir));
      }
    }
    // Paging keeps that order.
    const paged = [];
    for (let offset = 0; offset < rows.length; offset += 4) {
      paged.push(...(await call(sorter, sortOrg, "GET", `/api/accounts?sort=marginLevel&dir=desc&limit=4&offset=${offset}`)).body.items);
    }
    expect(paged.map((r) => `${r.platformId}/${r.login}`)).toEqual(expected("marginLevel", "desc"));
  });

  it("refuses bad list input with a readable 400", async () => {
    const cases: [string, RegExp][] = [
      ["sort=password", /^Sort must name a column to sort by: one of /],
      ["dir=up", /^Sort direction must be asc \(ascending\) or desc \(descending\)$/],
      ["limit=501", /limit must be from 1 to 500/i],
      ["limit=abc", /limit/i],
      ["offset=-1", /offset/],
      ["balanceMin=lots", /Minimum balance must be an amount/],
      ["balanceMin=100&balanceMax=50", /^Minimum balance must not be greater than maximum balance$/],
      ["platformId=not-a-uuid", /platform ID/i],
      [`login=${encodeURIComponent("1' or '1'='1")}`, /login/],
    ];
    for (const [query, message] of cases) {
      const res = await get(`/api/accounts?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.message, query).toMatch(new RegExp(message.source, "i"));
    }
  });

  it("shows one account with live figures and its positions, deals and journal", async () => {
    const c = await connector();
    const withPosition = (await c.openPositions())[0]!;
    const login = withPosition.login;
    const detail = await get(`/api/accounts/${platformId}/${login}`);
    expect(detail.status).toBe(200);
    const live = await c.getAccount(login);
    expect(detail.body).toMatchObject({ login, live: true, phone: live.phone, country: live.country, city: live.city, balance: moneyToDecimal(live.balance) });

    const positions = await get(`/api/accounts/${platformId}/${login}/positions`);
    expect(positions.status).toBe(200);
    expect(positions.body.map((p: { id: string }) => p.id)).toContain(withPosition.id);
    expect(positions.body[0].volume).toMatch(/^\d+(\.\d+)?$/);

    const from = new Date(Date.now() - 400 * 86_400_000).toISOString();
    const deals = await get(`/api/accounts/${platformId}/${login}/deals?from=${from}&to=${new Date().toISOString()}`);
    expect(deals.status).toBe(200);
    expect(deals.body.some((d: { action: string; comment: string }) => d.action === "balance" && d.comment === "Initial deposit")).toBe(true);

    const journal = await get(`/api/accounts/${platformId}/${login}/journal`);
    expect(journal.status).toBe(200);
    expect(Array.isArray(journal.body)).toBe(true);

    expect((await get(`/api/accounts/${platformId}/${login}/deals?from=2024-02-01T00:00:00Z&to=2024-01-01T00:00:00Z`)).status).toBe(400);
    expect((await get(`/api/accounts/${platformId}/99999999`)).status).toBe(404);
    expect((await get(`/api/accounts/${platformId}/99999999/positions`)).status).toBe(404);
    expect((await get(`/api/accounts/not-a-uuid/${login}`)).status).toBe(400);
  });

  it("never lets another organization read or change an account by id (404, nothing changed)", async () => {
    const login = accounts[3]!.login;
    const before = await (await connector()).getAccount(login);
    const asOutsider = (method: "GET" | "POST" | "PATCH", url: string, payload?: unknown) => call(outsider, otherOrg, method, url, payload);
    const base = `/api/accounts/${platformId}/${login}`;
    for (const res of [
      await asOutsider("GET", base),
      await asOutsider("GET", `${base}/positions`),
      await asOutsider("GET", `${base}/deals`),
      await asOutsider("GET", `${base}/journal`),
      await asOutsider("PATCH", base, { leverage: 7 }),
      await asOutsider("POST", `${base}/reset-password`, { password: "Secret123" }),
    ]) {
      expect(res.status).toBe(404);
      expect(JSON.stringify(res.body)).not.toContain(before.name);
    }
    const money = await t.app.inject({
      method: "POST",
      url: `${base}/balance-operations`,
      headers: { ...apiHeaders(await tokens.mint(outsider), otherOrg), "idempotency-key": "outsider-key-1" },
      payload: { type: "deposit", amount: "1000000.00" },
    });
    expect(money.statusCode).toBe(404);
    const created = await asOutsider("POST", "/api/accounts", { platformId, group: before.group, name: "Intruder", password: "Secret123" });
    expect(created.status).toBe(404);
    // With the organization's header but not a member: refused by the guard.
    expect((await call(outsider, org, "GET", base)).status).toBe(404);

    const after = await (await connector()).getAccount(login);
    expect({ ...after, lastAccess: null }).toEqual({ ...before, lastAccess: null });
    const audits = await t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.targetId, `${platformId}/${login}`));
    expect(audits).toHaveLength(0);
  });

  it("enforces the users module permissions: read-only members cannot change or move money", async () => {
    const login = accounts[4]!.login;
    const base = `/api/accounts/${platformId}/${login}`;
    expect((await get("/api/accounts?limit=1", viewer)).status).toBe(200);
    expect((await get(base, viewer)).status).toBe(200);
    for (const person of [viewer]) {
      expect((await call(person, org, "PATCH", base, { leverage: 50 })).status).toBe(403);
      expect((await call(person, org, "POST", `${base}/reset-password`, { password: "Secret123" })).status).toBe(403);
      expect((await call(person, org, "POST", "/api/accounts", { platformId, group: "demo\\retail-usd", name: "X", password: "Secret123" })).status).toBe(403);
    }
    for (const person of [viewer, writer]) {
      const res = await t.app.inject({
        method: "POST",
        url: `${base}/balance-operations`,
        headers: { ...apiHeaders(await tokens.mint(person), org), "idempotency-key": `perm-${person.sub}` },
        payload: { type: "deposit", amount: "10.00" },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toMatch(/"money" permission on the "users" module/);
    }
    // Writers may change the account.
    expect((await call(writer, org, "PATCH", base, { leverage: 50 })).status).toBe(200);
  });

  it("creates an account on the platform, mirrors it, and audits it without the password", async () => {
    const res = await call(dealer, org, "POST", "/api/accounts", {
      platformId,
      group: "real\\retail-usd",
      name: "Nadia Newcomer",
      email: "nadia@example.com",
      leverage: 200,
      password: "Secret123",
      country: "Cyprus",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ platformId, group: "real\\retail-usd", name: "Nadia Newcomer", leverage: 200, balance: "0.00" });
    const login = res.body.login;
    expect((await (await connector()).getAccount(login)).name).toBe("Nadia Newcomer");
    expect((await get(`/api/accounts?login=${login}`)).body.total).toBe(1);

    const [audit] = await t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "account.created"), eq(auditEvents.targetId, `${platformId}/${login}`)));
    expect(audit).toMatchObject({ organizationId: org, actorSub: dealer.sub });
    expect(JSON.stringify(audit)).not.toContain("Secret123");

    const weak = await call(dealer, org, "POST", "/api/accounts", { platformId, group: "real\\retail-usd", name: "Weak", password: "short" });
    expect(weak.status).toBe(400);
    expect(weak.body.message).toMatch(/password must be 8 to 16 characters/i);
    const unknownGroup = await call(dealer, org, "POST", "/api/accounts", { platformId, group: "nope", name: "Lost", password: "Secret123" });
    expect(unknownGroup.status).toBeGreaterThanOrEqual(400);
    expect(unknownGroup.status).toBeLessThan(500);
  });

  it("changes group, leverage and rights through the platform, with before and after in the audit", async () => {
    const account = accounts.find((a) => a.group === "demo\\retail-usd" && a.enabled)!;
    const base = `/api/accounts/${platformId}/${account.login}`;
    const res = await call(dealer, org, "PATCH", base, { group: "demo\\pro-usd", leverage: 321, enabled: false, readOnly: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ group: "demo\\pro-usd", leverage: 321, enabled: false, readOnly: true });
    expect(await (await connector()).getAccount(account.login)).toMatchObject({ group: "demo\\pro-usd", leverage: 321, enabled: false, readOnly: true });
    const [audit] = await t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "account.changed"), eq(auditEvents.targetId, `${platformId}/${account.login}`)));
    expect(audit!.before).toEqual({ group: "demo\\retail-usd", leverage: account.leverage, enabled: true, readOnly: account.readOnly });
    expect(audit!.after).toEqual({ group: "demo\\pro-usd", leverage: 321, enabled: false, readOnly: true });

    for (const [body, message] of [
      [{}, /Nothing to change/],
      [{ leverage: 0 }, /leverage must be from 1 to 10000/i],
      [{ leverage: 1.5 }, /whole number/],
      [{ enabled: "yes" }, /enabled must be true or false/i],
      // One limit for the group name, the same in the app's form (core/schemas/accounts.ts).
      [{ group: "g".repeat(65) }, /group is at most 64 characters/i],
      [{ password: "Secret123" }, /password|Unrecognized/i],
    ] as const) {
      const bad = await call(dealer, org, "PATCH", base, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.message).toMatch(new RegExp(message.source, "i"));
    }
  });

  it("resets a password (204), audited without it", async () => {
    const login = accounts[9]!.login;
    const res = await call(dealer, org, "POST", `/api/accounts/${platformId}/${login}/reset-password`, { password: "NewPass99" });
    expect(res.status).toBe(204);
    const audits = await t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(like(auditEvents.action, "account.password%"), eq(auditEvents.targetId, `${platformId}/${login}`)));
    expect(audits).toHaveLength(1);
    expect(JSON.stringify(audits)).not.toContain("NewPass99");
    const weak = await call(dealer, org, "POST", `/api/accounts/${platformId}/${login}/reset-password`, { password: "nodigits" });
    expect(weak.status).toBe(400);
    expect(weak.body.message).toMatch(/password/);
  });
  it("keeps a disabled platform's accounts (detail from the mirror), and drops them with the platform", async () => {
    const id = await connectSimulated(dealer, org, "Short-lived MT4", 30);
    const login = (await get(`/api/accounts?platformId=${id}&limit=1`)).body.items[0].login;
    const mirror = accountsMirrorOf(t.ctx)!;

    const disabled = await call(dealer, org, "PATCH", `/api/tradePlatforms/${id}`, { enable: false });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    await expect.poll(() => mirror.status(id)?.phase).toBe("waiting");
    expect((await get(`/api/accounts?platformId=${id}`)).body.total).toBe(30);
    const detail = await get(`/api/accounts/${id}/${login}`);
    expect(detail.status).toBe(200);
    expect(detail.body.live).toBe(false);
    const blocked = await call(dealer, org, "PATCH", `/api/accounts/${id}/${login}`, { leverage: 10 });
    expect(blocked.status).toBe(409);
    expect(blocked.body.message).toMatch(/disabled/);

    expect((await call(dealer, org, "PATCH", `/api/tradePlatforms/${id}`, { enable: true })).status).toBe(200);
    await expect.poll(() => mirror.status(id)?.phase, { timeout: 10_000 }).toBe("live");

    const removed = await t.app.inject({
      method: "DELETE",
      url: `/api/tradePlatforms/${id}`,
      headers: apiHeaders(await tokens.mint(dealer), org),
      payload: { confirmName: "Short-lived MT4" },
    });
    expect(removed.statusCode, removed.body).toBe(204);
    await expect.poll(() => mirror.status(id)).toBeUndefined();
    expect((await get(`/api/accounts?platformId=${id}`)).body.total).toBe(0);
    expect((await get(`/api/accounts/${id}/${login}`)).status).toBe(404);
    expect((await get("/api/accounts?limit=1")).body.total).toBeGreaterThanOrEqual(600);
  });
});
