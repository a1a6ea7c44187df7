/**
 * Customers (docs/customers.md) through the real server on both databases: tenant isolation, one
 * customer per account, permissions, bad input, optimistic concurrency, audit with before and
 * after, delete unlinking (never deleting) accounts, notes, the CSV export holding the view's rows,
 * and the import's all-or-nothing and valid-rows-only modes with errors by line and field.
 */
import { and, desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, customerAccounts, customers, tradeDeals, tradingAccounts } from "../../server/db/schema.ts";
import { accountsMirrorOf } from "../../server/modules/accounts/mirror/plugin.ts";
import { parseCsv } from "../../server/modules/customers/csv.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

describeDb("customers", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const admin = newPerson("Ada Admin");
  const clerk = { ...newPerson("Cleo Clerk"), email: `cleo-${Date.now()}@example.test` };
  const reader = newPerson("Rob Reader");
  const stranger = newPerson("Otto Other");
  let org: string;
  let otherOrg: string;
  let h: Record<string, string>;
  let readerH: Record<string, string>;
  let otherH: Record<string, string>;
  const platforms: string[] = [];
  let otherPlatform: string;

  async function simulated(headers: Record<string, string>, name: string, count: number) {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/tradePlatforms",
      headers,
      payload: { type: "MT5", name, timeZone: "UTC", connection: { kind: "simulated", accounts: count, tradeRate: 0, seed: count } },
    });
    expect(res.statusCode, res.body).toBe(201);
    await accountsMirrorOf(t.ctx)!.whenSynced(res.json().id, 30_000);
    return res.json().id as string;
  }

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, admin);
    otherOrg = await signUp(t, tokens, stranger);
    await addMember(t.ctx, org, clerk, { [`Module.customers.${org}`]: "read,write" });
    await addMember(t.ctx, org, reader, { [`Module.customers.${org}`]: "read" });
    h = apiHeaders(await tokens.mint(clerk), org);
    readerH = apiHeaders(await tokens.mint(reader), org);
    otherH = apiHeaders(await tokens.mint(stranger), otherOrg);
    const adminH = apiHeaders(await tokens.mint(admin), org);
    platforms.push(await simulated(adminH, "Demo MT5 A", 5), await simulated(adminH, "Demo MT5 B", 4));
    otherPlatform = await simulated(otherH, "Other MT5", 3);
  }, 90_000);
  afterAll(() => t?.close());

  const call = (method: "GET" | "POST" | "PATCH" | "DELETE", url: string, payload?: unknown, headers = h) =>
    t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  async function loginsOf(platformId: string, organizationId = org) {
    const rows = await t.ctx.database.db
      .select({ login: tradingAccounts.login, balance: tradingAccounts.balance, equity: tradingAccounts.equity })
      .from(tradingAccounts)
      .where(and(eq(tradingAccounts.organizationId, organizationId), eq(tradingAccounts.platformId, platformId)));
    return rows.sort((a, b) => a.login.localeCompare(b.login));
  }

  async function create(fields: Record<string, unknown>) {
    const res = await call("POST", "/api/customers", { kind: "person", ...fields });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  }

  it("creates, reads, edits with a version check, and audits each change with before and after", async () => {
    const created = await create({ name: "Anna Berg", email: "Anna.Berg@Example.com", phone: "+46 8 123 45", country: "se", tags: ["vip", "vip", "eu"] });
    expect(created).toMatchObject({
      name: "Anna Berg",
      email: "anna.berg@example.com",
      country: "SE",
      status: "lead",
      kyc: "notStarted",
      tags: ["vip", "eu"],
      version: 1,
    });

    const edited = await call("PATCH", `/api/customers/${created.id}`, { status: "active", kyc: "verified", version: 1 });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json()).toMatchObject({ status: "active", kyc: "verified", version: 2 });

    const stale = await call("PATCH", `/api/customers/${created.id}`, { status: "blocked", version: 1 });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().message).toMatch(/Someone else changed this customer since you opened it/);
    expect((await call("GET", `/api/customers/${created.id}`)).json().status).toBe("active");

    const audit = await t.ctx.database.db.select().from(auditEvents).where(eq(auditEvents.targetId, created.id));
    expect(audit.map((a) => a.action).sort()).toEqual(["customer.created", "customer.updated"]);
    const update = audit.find((a) => a.action === "customer.updated")!;
    expect(update.before).toMatchObject({ status: "lead", kyc: "notStarted" });
    expect(update.after).toMatchObject({ status: "active", kyc: "verified" });
    expect(update.actorSub).toBe(clerk.sub);
  });

  it("refuses bad input with a readable 400", async () => {
    const cases: [unknown, RegExp][] = [
      [{ kind: "person", name: "X", country: "XX" }, /country must be an ISO 3166-1 two-letter code/i],
      [{ kind: "person", name: "X", email: "not-an-address" }, /email must be an e-mail address/i],
      [{ kind: "robot", name: "X" }, /kind must be person or company/i],
      [{ kind: "person", name: "  " }, /name is required/i],
      [{ kind: "person", name: "X", status: "gold" }, /status must be lead, active or blocked/],
      [{ kind: "person", name: "X", ownerSub: "nobody-here" }, /owner must be a member of this organization/],
    ];
    for (const [payload, message] of cases) {
      const res = await call("POST", "/api/customers", payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().message).toMatch(new RegExp(message.source, "i"));
    }
    expect((await call("GET", "/api/customers?sort=shoeSize")).statusCode).toBe(400);
    expect((await call("GET", "/api/customers?status=gold")).json().message).toMatch(/status( \(item 1\))? must be one or more of/i);
    expect((await call("GET", "/api/customers/not-a-uuid")).statusCode).toBe(400);
    expect((await call("PATCH", `/api/customers/${crypto.randomUUID()}`, { name: "X" })).statusCode).toBe(400);
  });

  it("keeps organizations apart: another organization's customer is not found", async () => {
    const mine = await create({ name: "Private Person", email: "private@example.com" });
    const urls: ["GET" | "PATCH" | "DELETE" | "POST", string, unknown?][] = [
      ["GET", `/api/customers/${mine.id}`],
      ["PATCH", `/api/customers/${mine.id}`, { name: "Taken", version: 1 }],
      ["DELETE", `/api/customers/${mine.id}`],
      ["GET", `/api/customers/${mine.id}/notes`],
      ["POST", `/api/customers/${mine.id}/notes`, { text: "hello" }],
      ["POST", `/api/customers/${mine.id}/accounts`, { platformId: otherPlatform, login: (await loginsOf(otherPlatform, otherOrg))[0]!.login }],
    ];
    for (const [method, url, payload] of urls) expect((await call(method, url, payload, otherH)).statusCode, `${method} ${url}`).toBe(404);
    const list = (await call("GET", "/api/customers?q=private", undefined, otherH)).json();
    expect(list).toEqual({ items: [], total: 0 });
    expect((await call("GET", `/api/customers/${mine.id}`)).json().name).toBe("Private Person");

    // Nor can this organization link another organization's account.
    const foreign = await call("POST", `/api/customers/${mine.id}/accounts`, {
      platformId: otherPlatform,
      login: (await loginsOf(otherPlatform, otherOrg))[0]!.login,
    });
    expect(foreign.statusCode).toBe(404);
  });

  it("lets a read-only member read but not change, and a member without the module nothing", async () => {
    const c = await create({ name: "Read Only Case" });
    expect((await call("GET", `/api/customers/${c.id}`, undefined, readerH)).statusCode).toBe(200);
    for (const [method, url, payload] of [
      ["POST", "/api/customers", { kind: "person", name: "Nope" }],
      ["PATCH", `/api/customers/${c.id}`, { name: "Nope", version: 1 }],
      ["DELETE", `/api/customers/${c.id}`],
      ["POST", `/api/customers/${c.id}/notes`, { text: "nope" }],
      ["POST", `/api/customers/${c.id}/accounts`, { platformId: platforms[0], login: "1" }],
      ["POST", "/api/customers/import", { csv: "kind,name\nperson,Nope\n" }],
    ] as const) {
      const res = await call(method, url, payload, readerH);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().message).toBe('You need the "write" permission on the "customers" module in this organization. Ask its administrator.');
    }
    const outsider = newPerson("No Module");
    await addMember(t.ctx, org, outsider, { [`Module.users.${org}`]: "read" });
    const res = await call("GET", "/api/customers", undefined, apiHeaders(await tokens.mint(outsider), org));
    expect(res.statusCode).toBe(403);
  });

  it("lists the members who can own a customer to anyone who reads customers, by name, without roles", async () => {
    const res = await call("GET", "/api/customers/owners", undefined, readerH);
    expect(res.statusCode, res.body).toBe(200);
    const owners = res.json<{ sub: string; name: string | null; email: string | null }[]>();
    // Every member (the earlier tests may have added some), by name.
    expect(owners.map((o) => o.sub)).toEqual(expect.arrayContaining([admin.sub, clerk.sub, reader.sub]));
    const names = owners.map((o) => o.name ?? "");
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    expect(owners.find((o) => o.sub === clerk.sub)).toEqual({ sub: clerk.sub, name: "Cleo Clerk", email: clerk.email });
    expect((await call("GET", "/api/customers/owners", undefined, otherH)).json().map((o: { sub: string }) => o.sub)).toEqual([stranger.sub]);
  });

  it("links accounts of two platforms with their balance and equity; an account has one customer; delete unlinks, never deletes", async () => {
    const first = await create({ name: "Linked Larsen", email: "larsen@example.com" });
    const second = await create({ name: "Second Svensson" });
    const [a] = await loginsOf(platforms[0]!);
    const [b] = await loginsOf(platforms[1]!);
    expect((await call("POST", `/api/customers/${first.id}/accounts`, { platformId: platforms[0], login: a!.login })).statusCode).toBe(201);
    const linked = await call("POST", `/api/customers/${first.id}/accounts`, { platformId: platforms[1], login: b!.login });
    expect(linked.statusCode, linked.body).toBe(201);

    const detail = (await call("GET", `/api/customers/${first.id}`)).json();
    expect(detail.accountCount).toBe(2);
    expect(detail.accounts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ platformId: platforms[0], platformName: "Demo MT5 A", login: a!.login, balance: a!.balance, equity: a!.equity }),
        expect.objectContaining({ platformId: platforms[1], platformName: "Demo MT5 B", login: b!.login, balance: b!.balance, equity: b!.equity }),
      ]),
    );

    // Recent deals from the trade history store: the linked accounts' only, newest first.
    const deal = (platformId: string, login: string, dealId: string, minutesAgo: number) => ({
      organizationId: org,
      platformId,
      login,
      dealId,
      time: new Date(Date.now() - minutesAgo * 60_000),
      action: "buy" as const,
      entry: "in" as const,
      symbol: "EURUSD",
      volume: "0.10",
      price: 1.1,
      profit: "0.00",
      commission: "0.00",
      swap: "0.00",
      reason: "client",
      comment: "",
      native: {},
    });
    const unlinked = (await loginsOf(platforms[0]!))[2]!.login;
    await t.ctx.database.db
      .insert(tradeDeals)
      .values([deal(platforms[0]!, a!.login, "d-a", 30), deal(platforms[1]!, b!.login, "d-b", 10), deal(platforms[0]!, unlinked, "d-other", 1)]);
    const withDeals = (await call("GET", `/api/customers/${first.id}`)).json();
    // The store's own deals of these accounts (the simulator's history) come after our newer ones.
    const got = withDeals.recentDeals as { dealId: string; platformId: string; login: string; time: string }[];
    expect(got.slice(0, 2).map((d) => [d.dealId, d.login])).toEqual([
      ["d-b", b!.login],
      ["d-a", a!.login],
    ]);
    expect(got.map((d) => d.dealId)).not.toContain("d-other");
    for (const d of got) expect([`${platforms[0]}:${a!.login}`, `${platforms[1]}:${b!.login}`]).toContain(`${d.platformId}:${d.login}`);
    expect(got.map((d) => d.time)).toEqual([...got.map((d) => d.time)].sort().reverse());

    const taken = await call("POST", `/api/customers/${second.id}/accounts`, { platformId: platforms[0], login: a!.login });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().message).toBe(`Account ${a!.login} is already linked to Linked Larsen. Unlink it there first.`);
    // Both at once: the links' key lets one win.
    const [r1, r2] = await Promise.all([
      call("POST", `/api/customers/${first.id}/accounts`, { platformId: platforms[1], login: (await loginsOf(platforms[1]!))[1]!.login }),
      call("POST", `/api/customers/${second.id}/accounts`, { platformId: platforms[1], login: (await loginsOf(platforms[1]!))[1]!.login }),
    ]);
    expect([r1.statusCode, r2.statusCode].sort()).toEqual([201, 409]);
    const missing = await call("POST", `/api/customers/${first.id}/accounts`, { platformId: platforms[0], login: "999999" });
    expect(missing.statusCode).toBe(404);

    // The "Link" picker asks which of the accounts it found a customer has: those it does not offer.
    const free = (await loginsOf(platforms[0]!))[3]!.login;
    const asked = [`${platforms[0]}:${a!.login}`, `${platforms[1]}:${b!.login}`, `${platforms[0]}:${free}`, `${otherPlatform}:${a!.login}`].join(",");
    const owners = await call("GET", `/api/customers/accountOwners?accounts=${asked}`);
    expect(owners.statusCode, owners.body).toBe(200);
    expect(
      owners
        .json()
        .sort((x: { platformId: string }, y: { platformId: string }) => (x.platformId === platforms[0] ? -1 : y.platformId === platforms[0] ? 1 : 0)),
    ).toEqual([
      { platformId: platforms[0], login: a!.login, customerId: first.id, customerName: "Linked Larsen" },
      { platformId: platforms[1], login: b!.login, customerId: first.id, customerName: "Linked Larsen" },
    ]);
    expect((await call("GET", `/api/customers/accountOwners?accounts=${asked}`, undefined, otherH)).json()).toEqual([]);
    const bad = await call("GET", "/api/customers/accountOwners?accounts=nonsense");
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/^Accounts \(item 1\) must be .*:login pairs separated by commas$/);

    const linkAudit = await t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetId, first.id), eq(auditEvents.action, "customer.accountLinked")));
    expect(linkAudit.length).toBeGreaterThanOrEqual(2);
    const accountsOf = (v: unknown) => (v as { accounts: { platformId: string }[] }).accounts.map((x) => x.platformId);
    const secondLink = linkAudit.find((e) => accountsOf(e.after).length === 2);
    expect(secondLink?.before).toEqual({ customer: "Linked Larsen", accounts: [{ platformId: platforms[0], login: a!.login }] });
    expect(accountsOf(secondLink?.after)).toEqual(expect.arrayContaining([platforms[0], platforms[1]]));

    // Unlink one, then delete the customer: the accounts stay in the mirror, free to link again.
    expect((await call("DELETE", `/api/customers/${first.id}/accounts/${platforms[1]}/${b!.login}`)).statusCode).toBe(204);
    expect((await call("DELETE", `/api/customers/${first.id}/accounts/${platforms[1]}/${b!.login}`)).statusCode).toBe(404);
    expect((await call("DELETE", `/api/customers/${first.id}`)).statusCode).toBe(204);
    expect((await call("GET", `/api/customers/${first.id}`)).statusCode).toBe(404);
    expect(await t.ctx.database.db.select().from(customerAccounts).where(eq(customerAccounts.customerId, first.id))).toEqual([]);
    expect((await loginsOf(platforms[0]!)).map((r) => r.login)).toContain(a!.login);
    expect((await call("POST", `/api/customers/${second.id}/accounts`, { platformId: platforms[0], login: a!.login })).statusCode).toBe(201);
  });

  it("shows a linked account that no longer exists on its server as missing, and keeps the link", async () => {
    const holder = await create({ name: "Missing Moreau" });
    const [gone, kept] = (await loginsOf(platforms[1]!)).slice(2);
    for (const account of [gone!, kept!])
      expect((await call("POST", `/api/customers/${holder.id}/accounts`, { platformId: platforms[1], login: account.login })).statusCode).toBe(201);
    const before = (await call("GET", `/api/customers/${holder.id}`)).json().accounts as { login: string; missing: boolean }[];
    expect(before.map((a) => [a.login, a.missing])).toEqual([
      [gone!.login, false],
      [kept!.login, false],
    ]);

    // The account vanishes from its server (as a simulated server rebuilt from its seed lost one);
    // the mirror's next complete sync no longer finds it.
    const books = t.app.platforms.simulatedServer(platforms[1]!)!.engine.ctx.state;
    expect(books.accounts.delete(gone!.login)).toBe(true);
    books.logins.splice(books.logins.indexOf(Number(gone!.login)), 1);
    await accountsMirrorOf(t.ctx)!.resync(platforms[1]!);

    const after = (await call("GET", `/api/customers/${holder.id}`)).json().accounts as { login: string; missing: boolean; balance: string | null }[];
    expect(after.map((a) => [a.login, a.missing, a.balance === null])).toEqual([
      [gone!.login, true, true],
      [kept!.login, false, false],
    ]);
    // Still linked, so it can be unlinked.
    expect((await call("DELETE", `/api/customers/${holder.id}/accounts/${platforms[1]}/${gone!.login}`)).statusCode).toBe(204);
  });

  it("keeps a notes timeline, newest first", async () => {
    const c = await create({ name: "Noted Nilsson" });
    expect((await call("POST", `/api/customers/${c.id}/notes`, { text: "Called, wants a demo" })).statusCode).toBe(201);
    expect((await call("POST", `/api/customers/${c.id}/notes`, { text: "Sent documents" })).statusCode).toBe(201);
    expect((await call("POST", `/api/customers/${c.id}/notes`, { text: "   " })).statusCode).toBe(400);
    const notes = (await call("GET", `/api/customers/${c.id}/notes`)).json();
    expect(notes.map((n: { text: string }) => n.text)).toEqual(["Sent documents", "Called, wants a demo"]);
    expect(notes[0]).toMatchObject({ authorSub: clerk.sub });
  });

  describe("list, export and import", () => {
    const tag = `batch${Date.now().toString(36)}`;

    it("searches by name or e-mail, filters, sorts and pages; the export holds exactly the view's rows", async () => {
      for (const [name, email, status, country] of [
        ["Zed Zimmer", "zed@zimmer.example", "active", "DE"],
        ["Yara Young", "yara@young.example", "lead", "DE"],
        ["Xavier Xu", "xavier@xu.example", "active", "FR"],
        ["Walt Wong", "walt@wong.example", "blocked", "DE"],
      ])
        await create({ name, email, status, country, tags: [tag], ownerSub: name === "Zed Zimmer" ? clerk.sub : null });

      const byEmail = (await call("GET", "/api/customers?q=YOUNG.exa")).json();
      expect(byEmail.items.map((c: { name: string }) => c.name)).toEqual(["Yara Young"]);
      const view = `tag=${tag}&country=de&status=active,lead&sort=name&dir=desc`;
      const page = (await call("GET", `/api/customers?${view}`)).json();
      expect(page.total).toBe(2);
      expect(page.items.map((c: { name: string }) => c.name)).toEqual(["Zed Zimmer", "Yara Young"]);
      expect(page.items[0]).toMatchObject({ ownerSub: clerk.sub, ownerName: "Cleo Clerk" });
      const paged = (await call("GET", `/api/customers?tag=${tag}&sort=name&limit=3&offset=3`)).json();
      expect(paged).toMatchObject({ total: 4, items: [expect.objectContaining({ name: "Zed Zimmer" })] });
      expect((await call("GET", `/api/customers?tag=${tag}&owner=${clerk.sub}`)).json().total).toBe(1);
      expect((await call("GET", `/api/customers?tag=${tag}&owner=none`)).json().total).toBe(3);

      const csv = await call("GET", `/api/customers.csv?${view}`);
      expect(csv.statusCode).toBe(200);
      expect(csv.headers["content-type"]).toMatch(/^text\/csv/);
      const records = parseCsv(csv.body).map((r) => r.fields);
      expect(records).toEqual([
        ["kind", "name", "email", "phone", "country", "status", "kyc", "tags", "owner"],
        ["person", "Zed Zimmer", "zed@zimmer.example", "", "DE", "active", "notStarted", tag, clerk.email],
        ["person", "Yara Young", "yara@young.example", "", "DE", "lead", "notStarted", tag, ""],
      ]);
    });

    const importTag = `imp${Date.now().toString(36)}`;
    const file = [
      "kind,name,email,country,status,tags,owner",
      `person,Imported One,one@import.example,NO,active,${importTag},`,
      `company,"Imported Two, AB",two@import.example,SE,lead,${importTag};b2b,${clerk.email}`,
      `person,Imported Three,three-at-import,ZZ,gold,${importTag},`,
      `person,Imported Four,four@import.example,,,${importTag},`,
    ].join("\r\n");
    const importedCount = async () => (await call("GET", `/api/customers?tag=${importTag}`)).json().total;

    it("reports every bad field by line and writes nothing unless the whole file is valid", async () => {
      const res = await call("POST", "/api/customers/import", { csv: file });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        rows: 4,
        valid: 3,
        imported: 0,
        existing: 0,
        updated: 0,
        skipped: 0,
        errors: [
          { line: 4, field: "email", message: "email must be an e-mail address such as anna@example.com" },
          { line: 4, field: "country", message: "country must be an ISO 3166-1 two-letter code such as FR or US" },
          { line: 4, field: "status", message: "status must be lead, active or blocked" },
        ],
      });
      expect(await importedCount()).toBe(0);
      const dry = (await call("POST", "/api/customers/import", { csv: file, mode: "validOnly", dryRun: true })).json();
      expect(dry).toMatchObject({ valid: 3, imported: 0 });
      expect(await importedCount()).toBe(0);

      expect((await call("POST", "/api/customers/import", { csv: 'kind,name\nperson,"never closed\n' })).json().message).toMatch(
        /Line 2: a quoted field is never closed/,
      );
      expect((await call("POST", "/api/customers/import", { csv: "kind,name,shoe\nperson,A,42\n" })).json().message).toMatch(/unknown column "shoe"/);
    });

    it("writes the valid rows only when asked, in one go, and audits the import", async () => {
      const res = await call("POST", "/api/customers/import", { csv: file, mode: "validOnly" });
      expect(res.json()).toMatchObject({ rows: 4, valid: 3, imported: 3 });
      const list = (await call("GET", `/api/customers?tag=${importTag}&sort=name`)).json();
      expect(list.items.map((c: { name: string }) => c.name)).toEqual(["Imported Four", "Imported One", "Imported Two, AB"]);
      expect(list.items[2]).toMatchObject({ kind: "company", country: "SE", tags: [importTag, "b2b"], ownerSub: clerk.sub });
      expect(list.items[0]).toMatchObject({ status: "lead", kyc: "notStarted", country: "" });
      const [audit] = await t.ctx.database.db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.organizationId, org), eq(auditEvents.action, "customers.imported")));
      expect(audit?.after).toMatchObject({ rows: 4, imported: 3, mode: "validOnly", rejectedLines: [4] });
      const rows = await t.ctx.database.db.select().from(customers).where(eq(customers.organizationId, otherOrg));
      expect(rows).toEqual([]);
    });

    it("matches rows to existing customers by e-mail: the preview counts them, then they are skipped or updated, never duplicated", async () => {
      const again = [
        "kind,name,email,country,tags",
        `person,Imported One Again,ONE@import.example,SE,"${importTag}; vip, new"`,
        `person,Brand New,new@import.example,,${importTag}`,
        `person,Twice,new@import.example,,${importTag}`,
      ].join("\n");
      const twice = (await call("POST", "/api/customers/import", { csv: again, dryRun: true })).json();
      expect(twice.errors).toEqual([{ line: 4, field: "email", message: "new@import.example is also on line 3: one row per customer" }]);
      const file2 = again.split("\n").slice(0, 3).join("\n");
      const preview = (await call("POST", "/api/customers/import", { csv: file2, dryRun: true, existing: "update" })).json();
      expect(preview).toEqual({ rows: 2, valid: 2, existing: 1, imported: 0, updated: 0, skipped: 0, errors: [] });

      const oneBefore = (await call("GET", `/api/customers?q=one@import.example`)).json().items[0];
      const skipped = (await call("POST", "/api/customers/import", { csv: file2 })).json();
      expect(skipped).toMatchObject({ rows: 2, existing: 1, imported: 1, updated: 0, skipped: 1 });
      expect(await importedCount()).toBe(4);
      expect((await call("GET", `/api/customers/${oneBefore.id}`)).json()).toMatchObject({ name: "Imported One", country: "NO", version: 1 });
      // The same file again creates nothing: both rows are customers now.
      expect((await call("POST", "/api/customers/import", { csv: file2 })).json()).toMatchObject({ existing: 2, imported: 0, skipped: 2 });
      expect(await importedCount()).toBe(4);

      const updated = (await call("POST", "/api/customers/import", { csv: file2, existing: "update" })).json();
      expect(updated).toMatchObject({ rows: 2, existing: 2, imported: 2, updated: 2, skipped: 0 });
      expect(await importedCount()).toBe(4);
      // The file's columns replace the customer's; the others (status, owner) stay.
      expect((await call("GET", `/api/customers/${oneBefore.id}`)).json()).toMatchObject({
        name: "Imported One Again",
        email: "one@import.example",
        country: "SE",
        status: "active",
        tags: [importTag, "vip", "new"],
        version: 2,
      });
      const [audit] = await t.ctx.database.db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.organizationId, org), eq(auditEvents.action, "customers.imported")))
        .orderBy(desc(auditEvents.at))
        .limit(1);
      expect(audit?.after).toMatchObject({ created: 0, updated: 2, skipped: 0, existing: "update" });
    });
  });
});
