/**
 * /api/logs (docs/logs.md) through the real server: the audit log's filters, sort and paging,
 * its CSV export, sign-ins at the embedded provider recorded in each of the person's
 * organizations, retention, `Module.logs` refusals and tenant isolation; the server journal of a
 * simulated platform with its filters and its live tail.
 */
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { moduleClaimType } from "../../core/access.ts";
import { AuditQuerySchema } from "../../core/schemas/logs.ts";
import { auditEvents } from "../../server/db/schema.ts";
import { accountsMirrorOf } from "../../server/modules/accounts/mirror/plugin.ts";
import { rowsOf } from "../../server/db/rows.ts";
import { AUDIT_COUNT_CAP, auditPageQuery, sweepAudit } from "../../server/modules/logs/repository.ts";
import { describeDb } from "../helpers/db.ts";
import { authorize, browse, pathOf, signIn, signUp as signUpThroughPages } from "../helpers/oidcFlow.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";
import { sseReader } from "./support/sse.ts";

const PASSWORD = "granite-willow-ember-77";
const DAY = 86_400_000;

describeDb("logs: the audit log and the server journals", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  let org: string;
  let otherOrg: string;
  let adminToken: string;
  let adminSub: string;
  const adminEmail = `ada-${Date.now().toString(36)}@example.test`;
  const outsider = newPerson("Olga Outsider");
  const reader = newPerson("Rita Reader");
  const noLogs = newPerson("Nils NoLogs");
  let platformId: string;
  let otherPlatformId: string;

  const inject = (token: string, organizationId: string, method: "GET" | "POST" | "PUT" | "PATCH", url: string, payload?: unknown) =>
    t.app.inject({ method, url, headers: apiHeaders(token, organizationId), ...(payload === undefined ? {} : { payload: payload as object }) });
  const asAdmin = (method: "GET" | "POST" | "PUT" | "PATCH", url: string, payload?: unknown) => inject(adminToken, org, method, url, payload);
  const as = async (person: Person, organizationId: string, url: string, method: "GET" | "PUT" = "GET", payload?: unknown) =>
    inject(await tokens.mint(person), organizationId, method, url, payload);

  async function connectSimulated(token: string, organizationId: string, name: string) {
    const res = await inject(token, organizationId, "POST", "/api/tradePlatforms", {
      type: "MT5",
      name,
      timeZone: "UTC",
      connection: { kind: "simulated", accounts: 5, tradeRate: 0, seed: 3 },
    });
    expect(res.statusCode, res.body).toBe(201);
    await accountsMirrorOf(t.ctx)!.whenSynced(res.json().id, 30_000);
    return res.json().id as string;
  }

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    // A person with a real account at the embedded provider, so that their sign-ins are recorded.
    const signedUp = await signUpThroughPages(t.app, { name: "Ada Admin", email: adminEmail, password: PASSWORD });
    adminToken = signedUp.access_token;
    const preflight = await t.app.inject({ url: "/api/profile/preflight", headers: apiHeaders(adminToken) });
    org = preflight.json().createdOrganizationId;
    adminSub = JSON.parse(Buffer.from(adminToken.split(".")[1]!, "base64url").toString()).sub;
    otherOrg = await signUp(t, tokens, outsider);
    await addMember(t.ctx, org, reader, { [moduleClaimType("logs", org)]: "read" });
    await addMember(t.ctx, org, noLogs, { [moduleClaimType("users", org)]: "read" });
    platformId = await connectSimulated(adminToken, org, "Sim MT5");
    otherPlatformId = await connectSimulated(await tokens.mint(outsider), otherOrg, "Other MT5");
  }, 60_000);
  afterAll(() => t?.close());

  it("records a platform's creation with actor, before/after and source address, and lists it", async () => {
    const res = await asAdmin("GET", "/api/logs/audit?action=tradePlatform.created");
    expect(res.statusCode, res.body).toBe(200);
    const { items, total } = res.json();
    expect(total).toBe(1);
    expect(items[0]).toMatchObject({
      actorSub: adminSub,
      actorName: "Ada Admin",
      action: "tradePlatform.created",
      targetType: "tradePlatform",
      targetId: platformId,
      // Shown by name (as it is called now), not only by id.
      targetName: "Sim MT5",
      before: null,
      after: expect.objectContaining({ name: "Sim MT5" }),
      sourceIp: "127.0.0.1",
    });
    // The other organization's platform creation is not in this organization's log.
    expect(JSON.stringify(items)).not.toContain(otherPlatformId);

    // A trading account is named by its platform and login; a renamed platform by its new name.
    // The fourth account: the journal test below changes the first three and counts their changes.
    const login = (await asAdmin("GET", `/api/accounts?platformId=${platformId}&limit=4`)).json().items[3].login as string;
    expect((await asAdmin("PATCH", `/api/accounts/${platformId}/${login}`, { leverage: 55 })).statusCode).toBe(200);
    const changed = (await asAdmin("GET", "/api/logs/audit?target=tradingAccount")).json().items[0];
    expect(changed).toMatchObject({ targetId: `${platformId}/${login}`, targetName: `Sim MT5 · ${login}` });
    // The CSV has both: the id and the name.
    const csv = await asAdmin("GET", "/api/logs/audit.csv?action=tradePlatform.created");
    expect(csv.body).toContain(`${platformId},Sim MT5,`);
  });

  it("filters by time range, actor, action (any part), target and free text; sorts by time; pages with a total", async () => {
    const { db } = t.ctx.database;
    const base = Date.parse("2026-03-01T10:00:00Z");
    // 25 older records at known times, in both organizations, to page through.
    await db.insert(auditEvents).values(
      Array.from({ length: 25 }, (_, i) => ({
        organizationId: org,
        actorSub: i % 2 ? "sub-bob" : "sub-carla",
        actorName: i % 2 ? "Bob Builder" : "Carla Clerk",
        action: i % 3 ? "customer.updated" : "customer.created",
        targetType: "customer",
        targetId: `cust-${i}`,
        before: i % 3 ? { city: "Oslo" } : null,
        after: { city: i === 7 ? "Zanzibar" : "Bergen" },
        sourceIp: "10.0.0.9",
        at: new Date(base + i * 60_000),
      })),
    );
    await db.insert(auditEvents).values({
      organizationId: otherOrg,
      actorSub: "sub-bob",
      actorName: "Bob Builder",
      action: "customer.created",
      targetType: "customer",
      targetId: "cust-other",
      after: { city: "Zanzibar" },
      at: new Date(base + 5 * 60_000),
    });
    const list = async (query: string) => {
      const res = await asAdmin("GET", `/api/logs/audit?${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ items: { targetId: string; at: string; action: string; actorName: string }[]; total: number }>();
    };
    const window = `from=2026-03-01T10:00:00Z&to=2026-03-01T10:24:00Z`;

    // Time range, newest first by default.
    const all = await list(`${window}&limit=500`);
    expect(all.total).toBe(25);
    expect(all.items.map((r) => r.targetId)).toEqual(Array.from({ length: 25 }, (_, i) => `cust-${24 - i}`));
    const narrow = await list("from=2026-03-01T10:05:00Z&to=2026-03-01T10:09:00Z&sort=asc");
    expect(narrow.items.map((r) => r.targetId)).toEqual(["cust-5", "cust-6", "cust-7", "cust-8", "cust-9"]);

    // Paging: pages of 10 make up the whole, in order, with the total on every page.
    const pages = await Promise.all([0, 10, 20].map((offset) => list(`${window}&limit=10&offset=${offset}`)));
    expect(pages.map((p) => p.total)).toEqual([25, 25, 25]);
    expect(pages.flatMap((p) => p.items.map((r) => r.targetId))).toEqual(all.items.map((r) => r.targetId));
    expect((await list(`${window}&limit=10&offset=30`)).items).toEqual([]);

    // Actor by name (contains, any case) or exact subject.
    expect((await list(`${window}&actor=bob`)).total).toBe(12);
    expect((await list(`${window}&actor=sub-carla`)).total).toBe(13);
    // Action: exact, or the start of one.
    expect((await list(`${window}&action=customer.created`)).total).toBe(9);
    expect((await list(`${window}&action=customer`)).total).toBe(25);
    expect((await list(`action=customer.`)).items.every((r) => r.action.startsWith("customer."))).toBe(true);
    // Any part of the action, not only its start: "created" finds customer.created.
    expect((await list(`${window}&action=created`)).total).toBe(9);
    expect((await list(`${window}&action=UPDATED`)).total).toBe(16);
    // Target: type or id.
    expect((await list(`${window}&target=cust-1`)).items.map((r) => r.targetId).sort()).toEqual(
      ["cust-1", ...Array.from({ length: 10 }, (_, i) => `cust-${10 + i}`)].sort(),
    );
    // Free text reaches into before/after; the other organization's Zanzibar stays out.
    expect((await list(`q=zanzibar`)).items.map((r) => r.targetId)).toEqual(["cust-7"]);
    // LIKE wildcards are literal.
    expect((await list(`${window}&q=%25`)).total).toBe(0);
    // Filters combine.
    expect((await list(`${window}&actor=bob&action=customer.created`)).items.map((r) => r.targetId)).toEqual(["cust-21", "cust-15", "cust-9", "cust-3"]);
  });

  it("counts a large log only up to a cap past the page, and searches its text through the trigram index", async () => {
    const { db } = t.ctx.database;
    const big = newPerson("Bea Bigorg");
    const bigOrg = await signUp(t, tokens, big);
    const extra = 150;
    const at = Date.parse("2026-04-01T00:00:00Z");
    for (let start = 0; start < AUDIT_COUNT_CAP + extra; start += 2_000) {
      await db.insert(auditEvents).values(
        Array.from({ length: Math.min(2_000, AUDIT_COUNT_CAP + extra - start) }, (_, k) => {
          const i = start + k;
          return {
            organizationId: bigOrg,
            actorSub: "sub-bulk",
            actorName: "Bulk Writer",
            action: "customer.updated",
            targetType: "customer",
            targetId: `bulk-${i}`,
            before: { status: "lead" },
            after: { status: i === 4321 ? "needle-status-quetzal" : "active" },
            at: new Date(at + i * 1_000),
          };
        }),
      );
    }
    const list = async (query: string) => {
      const res = await as(big, bigOrg, `/api/logs/audit?${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ items: { targetId: string }[]; total: number; totalCapped: boolean }>();
    };
    // The first page: more match than the cap, so the total is the cap and says so.
    const first = await list("limit=100");
    expect(first).toMatchObject({ total: AUDIT_COUNT_CAP, totalCapped: true });
    expect(first.items).toHaveLength(100);
    // Further on, the cap counts past the offset: here every match is counted, exactly.
    expect(await list("limit=100&offset=200")).toMatchObject({ total: AUDIT_COUNT_CAP + extra, totalCapped: false });
    // A short last page and a narrow filter are exact without counting past them.
    expect(await list(`limit=100&offset=${AUDIT_COUNT_CAP + 100}`)).toMatchObject({ total: AUDIT_COUNT_CAP + extra, totalCapped: false });
    expect(await list("q=NEEDLE-status")).toMatchObject({ total: 1, totalCapped: false, items: [{ targetId: "bulk-4321" }] });
    // Text across the fields' boundary (a line break) matches nothing.
    expect((await list("q=bulk-4321%0Acustomer")).total).toBe(0);

    // The free text is answered from the trigram index (on PGlite as on PostgreSQL): with table
    // scans and plain index scans a last resort, the plan reads audit_events_search_trgm_idx.
    // After a vacuum (autovacuum's job in service) the index's statistics know its trigrams.
    await db.execute(sql`vacuum analyze audit_events`);
    const plan = await db.transaction(async (tx) => {
      for (const setting of ["enable_seqscan", "enable_indexscan"]) await tx.execute(sql.raw(`set local ${setting} = off`));
      const result = await tx.execute(sql`explain ${auditPageQuery(tx as unknown as typeof db, bigOrg, AuditQuerySchema.parse({ q: "quetzal" }))}`);
      return rowsOf<Record<string, string>>(result)
        .map((r) => Object.values(r)[0])
        .join("\n");
    });
    expect(plan).toContain("audit_events_search_trgm_idx");
  }, 120_000);

  it("exports the filtered view as CSV, with before/after as JSON and formulas neutralised", async () => {
    await t.ctx.database.db.insert(auditEvents).values({
      organizationId: org,
      actorSub: "sub-eve",
      actorName: "=HYPERLINK(evil)",
      action: "customer.updated",
      targetType: "customer",
      targetId: "cust-csv",
      before: { note: 'said "hi", left' },
      after: { note: "bye" },
      at: new Date("2026-02-01T00:00:00Z"),
    });
    const res = await asAdmin("GET", "/api/logs/audit.csv?target=cust-csv");
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["content-type"]).toContain("text/csv");
    expect(res.headers["x-total-count"]).toBe("1");
    const lines = res.body.trimEnd().split("\r\n");
    expect(lines[0]).toBe("Time,Actor,Actor id,Action,Target type,Target,Target name,Source IP,Before,After");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe(
      `2026-02-01T00:00:00.000Z,'=HYPERLINK(evil),sub-eve,customer.updated,customer,cust-csv,,,"{""note"":""said \\""hi\\"", left""}","{""note"":""bye""}"`,
    );

    const window = await asAdmin("GET", "/api/logs/audit.csv?from=2026-03-01T10:00:00Z&to=2026-03-01T10:24:00Z&sort=asc");
    const rows = window.body.trimEnd().split("\r\n").slice(1);
    expect(rows).toHaveLength(25);
    expect(rows[0]).toContain("cust-0");
    expect(rows[24]).toContain("cust-24");
  });

  it("records sign-ins and failed sign-ins in the person's organizations; an unknown e-mail in none", async () => {
    // A second organization of the same person: the sign-in shows in both.
    const second = await asAdmin("POST", "/api/organizations", { name: "Second Desk" });
    expect(second.statusCode, second.body).toBe(201);
    const secondOrg = second.json().id as string;

    await signIn(t.app, { email: adminEmail.toUpperCase(), password: PASSWORD });
    const failed = async (email: string) => {
      const { flow, response } = await authorize(t.app);
      const page = pathOf(String(response.headers.location), flow.publicUrl);
      await browse(t.app, flow.jar, "GET", page);
      const posted = await browse(t.app, flow.jar, "POST", `${page}/login`, { email, password: "not-the-password-1" });
      expect(posted.statusCode).toBe(401);
    };
    await failed(adminEmail);
    const unknown = `nobody-${Date.now().toString(36)}@example.test`;
    await failed(unknown);

    for (const organizationId of [org, secondOrg]) {
      const res = await inject(adminToken, organizationId, "GET", "/api/logs/audit?action=session.");
      expect(res.statusCode, res.body).toBe(200);
      const items = res.json().items as { action: string; actorSub: string; targetId: string; sourceIp: string; after: unknown }[];
      expect(items.map((i) => i.action)).toEqual(["session.signInFailed", "session.signedIn"]);
      for (const item of items) expect(item).toMatchObject({ actorSub: adminSub, targetId: adminSub, sourceIp: "127.0.0.1", after: { email: adminEmail } });
    }
    const everywhere = await t.ctx.database.db.select().from(auditEvents);
    expect(JSON.stringify(everywhere)).not.toContain(unknown);
    // The outsider's organization has none of Ada's sign-ins.
    const outsiders = await as(outsider, otherOrg, "/api/logs/audit?action=session.");
    expect(outsiders.json().total).toBe(0);
  });

  it("refuses without Module.logs, keeps each organization to its own log, and rejects bad filters with 400", async () => {
    expect((await as(reader, org, "/api/logs/audit")).statusCode).toBe(200);
    const refused = await as(noLogs, org, "/api/logs/audit");
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toContain('"logs"');
    expect((await as(noLogs, org, "/api/logs/audit.csv")).statusCode).toBe(403);
    expect((await as(noLogs, org, `/api/logs/journal?platformId=${platformId}`)).statusCode).toBe(403);
    // Not a member of the other organization: refused; and its platform is not found from here.
    expect((await as(reader, otherOrg, "/api/logs/audit")).statusCode).toBe(404);
    expect((await asAdmin("GET", `/api/logs/journal?platformId=${otherPlatformId}`)).statusCode).toBe(404);
    expect((await asAdmin("GET", `/api/logs/journal/live?platformId=${otherPlatformId}`)).statusCode).toBe(404);
    // Retention is an administrator's setting.
    expect((await as(reader, org, "/api/logs/settings", "PUT", { auditRetentionDays: 90 })).statusCode).toBe(403);

    for (const query of [
      "limit=0",
      "limit=501",
      "offset=-1",
      "from=yesterday",
      "from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z",
      "sort=up",
      `q=${"x".repeat(201)}`,
    ]) {
      const res = await asAdmin("GET", `/api/logs/audit?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().message, query).toBeTruthy();
    }
    // A range longer than a year is refused in words, also when To is left open (now); a year is read.
    for (const query of ["from=2025-01-01T00:00:00Z&to=2026-01-03T00:00:00Z", `from=${new Date(Date.now() - 367 * 86_400_000).toISOString()}`]) {
      for (const path of ["/api/logs/audit", "/api/logs/audit.csv"]) {
        const res = await asAdmin("GET", `${path}?${query}`);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().message, query).toMatch(/^The range is at most 366 days: choose a later From or an earlier To/);
      }
    }
    expect((await asAdmin("GET", "/api/logs/audit?from=2025-01-01T00:00:00Z&to=2026-01-02T00:00:00Z")).statusCode).toBe(200);
    for (const query of ["platformId=nope", `platformId=${platformId}&levels=loud`, `platformId=${platformId}&limit=5000`, "levels=ok"]) {
      expect((await asAdmin("GET", `/api/logs/journal?${query}`)).statusCode, query).toBe(400);
    }
    expect((await asAdmin("PUT", "/api/logs/settings", { auditRetentionDays: 5 })).statusCode).toBe(400);
    expect((await asAdmin("PUT", "/api/logs/settings", { auditRetentionDays: "many" })).statusCode).toBe(400);
  });

  it("keeps audit records for the organization's retention; the sweep removes older ones only there", async () => {
    const { db } = t.ctx.database;
    const old = new Date(Date.now() - 45 * DAY);
    const rows = [org, otherOrg].map((organizationId) => ({
      organizationId,
      actorSub: "sub-old",
      actorName: "Old Timer",
      action: "customer.created",
      targetType: "customer",
      targetId: `old-${organizationId}`,
      at: old,
    }));
    await db.insert(auditEvents).values(rows);

    expect((await asAdmin("GET", "/api/logs/settings")).json()).toEqual({ auditRetentionDays: 365 });
    const saved = await asAdmin("PUT", "/api/logs/settings", { auditRetentionDays: 30 });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toEqual({ auditRetentionDays: 30 });
    const change = (await asAdmin("GET", "/api/logs/audit?action=logSettings.updated")).json().items[0];
    expect(change).toMatchObject({ before: { auditRetentionDays: 365 }, after: { auditRetentionDays: 30 }, actorSub: adminSub });

    await sweepAudit(db);
    const left = await db.select({ targetId: auditEvents.targetId }).from(auditEvents).where(eq(auditEvents.actorSub, "sub-old"));
    // Only the other organization's (365 days by default) is left; this one's recent records stay.
    expect(left.map((r) => r.targetId)).toEqual([`old-${otherOrg}`]);
    expect((await asAdmin("GET", "/api/logs/audit?action=tradePlatform.created")).json().total).toBe(1);
  });

  it("reads a simulated platform's journal with level, text and time filters", async () => {
    const logins = ((await asAdmin("GET", `/api/accounts?platformId=${platformId}&limit=3`)).json().items as { login: string }[]).map((a) => a.login);
    expect(logins).toHaveLength(3);
    for (const [i, login] of logins.entries()) {
      const changed = await asAdmin("PATCH", `/api/accounts/${platformId}/${login}`, { leverage: 50 + i });
      expect(changed.statusCode, changed.body).toBe(200);
    }
    const journal = (query = "") => asAdmin("GET", `/api/logs/journal?platformId=${platformId}&from=2000-01-01T00:00:00Z${query}`);
    const res = await journal();
    expect(res.statusCode, res.body).toBe(200);
    const { items, truncated } = res.json<{ items: { time: string; level: string; message: string; login: string | null }[]; truncated: boolean }>();
    expect(truncated).toBe(false);
    // Toolbox's own manager connection, then the three changes, newest first.
    const changes = items.filter((e) => /account changed/.test(e.message) && logins.includes(e.login ?? ""));
    expect(changes.map((e) => e.login)).toEqual([...logins].reverse());
    expect(changes.every((e) => e.level === "ok")).toBe(true);
    expect(items.some((e) => e.level === "login" && /connected/.test(e.message))).toBe(true);
    const times = items.map((e) => Date.parse(e.time));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const byText = (await journal(`&text=${encodeURIComponent(`'${logins[1]}'`)}`)).json().items as { message: string }[];
    expect(byText).toHaveLength(1);
    expect(byText[0]!.message).toMatch(new RegExp(`^'${logins[1]}': account changed`));
    const byLevel = (await journal("&levels=login")).json().items as { level: string }[];
    expect(byLevel.length).toBeGreaterThan(0);
    expect(byLevel.every((e) => e.level === "login")).toBe(true);
    expect((await journal("&levels=ok,login")).json().items).toHaveLength(items.filter((e) => e.level === "ok" || e.level === "login").length);
    // A window before anything happened is empty; a small limit keeps the newest and says so.
    expect((await journal("&to=2000-01-02T00:00:00Z")).json().items).toEqual([]);
    expect((await journal("&limit=2")).json()).toEqual({ items: items.slice(0, 2), truncated: true });
  });

  it("tails the journal live: an account change appears without asking again", async () => {
    const base = await t.app.listen({ port: 0, host: "127.0.0.1" });
    // An account the journal has no line about yet.
    const accounts = (await asAdmin("GET", `/api/accounts?platformId=${platformId}&limit=5`)).json().items as { login: string }[];
    const login = accounts[4]!.login;
    const controller = new AbortController();
    const res = await fetch(`${base}/api/logs/journal/live?platformId=${platformId}&text=${encodeURIComponent(`'${login}'`)}`, {
      headers: apiHeaders(adminToken, org),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const sse = sseReader(res.body!);
    try {
      await sse.until(() => sse.events.find((e) => e.event === "status"), "the first status");
      expect(sse.events.filter((e) => e.event === "entry")).toEqual([]);
      const changed = await asAdmin("PATCH", `/api/accounts/${platformId}/${login}`, { leverage: 33 });
      expect(changed.statusCode, changed.body).toBe(200);
      const entry = await sse.until(() => sse.events.find((e) => e.event === "entry"), "the new journal entry");
      expect(entry.data).toMatchObject({ level: "ok", login, message: expect.stringContaining("account changed") });
      // The change is audited with before and after.
      const audit = (await asAdmin("GET", `/api/logs/audit?target=${encodeURIComponent(`${platformId}/${login}`)}&action=account.`)).json().items[0];
      expect(audit.before).toMatchObject({ leverage: expect.any(Number) });
      expect(audit.after).toMatchObject({ leverage: 33 });
    } finally {
      controller.abort();
    }
  });
});
