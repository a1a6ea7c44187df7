/** Trade platforms through the API: lifecycle, isolation between organizations, input, permissions, audit, secrets. */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { moduleClaimType } from "../../core/access.ts";
import { auditEvents, tradePlatformApps, tradePlatforms } from "../../server/db/schema.ts";
import { describeDb, theOnly } from "../helpers/db.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";
import { startPlatformsApp, waitFor, type PlatformsApp } from "./platformsHarness.ts";

/** Secrets used in this file: none may ever come back in an answer or reach the log. */
const SECRETS = ["Manager1", "Wr0ng-Pass!", "s3cr3t-MT5-manager-pw", "mt-api-key-0123456789abcdef"];

describeDb("trade platforms API", () => {
  let t: PlatformsApp;
  let tokens: TokenFactory;
  let ada: Person;
  let adaOrg: string;
  let adaToken: string;
  let eve: Person;
  let eveOrg: string;
  let eveToken: string;

  beforeAll(async () => {
    t = await startPlatformsApp();
    tokens = await tokenFactory(t.ctx);
  });
  // Every test has two organizations of its own: nothing a test creates is seen by another, and
  // any one test runs alone (`-t`).
  beforeEach(async () => {
    ada = newPerson("Ada");
    eve = newPerson("Eve");
    adaOrg = await signUp(t, tokens, ada);
    eveOrg = await signUp(t, tokens, eve);
    adaToken = await tokens.mint(ada);
    eveToken = await tokens.mint(eve);
  });
  afterAll(async () => {
    await t?.close();
    await t?.drop();
  });

  const as = (token: string, org: string) => ({
    get: (url: string) => t.call({ method: "GET", url, headers: apiHeaders(token, org) }),
    post: (url: string, payload: unknown) => t.call({ method: "POST", url, payload: payload as object, headers: apiHeaders(token, org) }),
    patch: (url: string, payload: unknown) => t.call({ method: "PATCH", url, payload: payload as object, headers: apiHeaders(token, org) }),
    put: (url: string, payload: unknown) => t.call({ method: "PUT", url, payload: payload as object, headers: apiHeaders(token, org) }),
    delete: (url: string, payload: unknown) => t.call({ method: "DELETE", url, payload: payload as object, headers: apiHeaders(token, org) }),
  });
  const adaApi = () => as(adaToken, adaOrg);
  const eveApi = () => as(eveToken, eveOrg);

  const simulated = (extra: Record<string, unknown> = {}) => ({ kind: "simulated", accounts: 40, tradeRate: 0, seed: 11, ...extra });
  async function create(name: string, type = "MT5", connection: Record<string, unknown> = simulated(), timeZone = "Europe/Athens") {
    const res = await adaApi().post("/api/tradePlatforms", { type, name, timeZone, connection });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  }
  const detail = async (id: string) => (await adaApi().get(`/api/tradePlatforms/${id}`)).json();
  const untilState = (id: string, state: string) =>
    waitFor(async () => {
      const d = await detail(id);
      return d.state === state ? d : undefined;
    }, `platform ${id} ${state}`);
  const auditsOf = (targetId: string) => t.ctx.database.db.select().from(auditEvents).where(eq(auditEvents.targetId, targetId)).orderBy(auditEvents.at);

  describe("create and connect", () => {
    for (const type of ["MT4", "MT5", "MatchTrader"]) {
      it(`connects a simulated ${type} server and shows it live`, async () => {
        const created = await create(`Sim ${type}`, type);
        expect(created).toMatchObject({
          type,
          name: `Sim ${type}`,
          enable: true,
          organizationId: adaOrg,
          timeZone: "Europe/Athens",
          connection: { kind: "simulated", accounts: 40, tradeRate: 0, seed: 11, hasSecret: false },
          apps: [
            { app: "tradesBlotter", enabled: false },
            { app: "tradesCopier", enabled: false },
            { app: "quotesMonitor", enabled: false },
          ],
        });
        expect(["connecting", "connected"]).toContain(created.state);

        const connected = await untilState(created.id, "connected");
        expect(connected.lastError).toBeNull();
        // The server's clock arrives with the first reading after the connection.
        const withTime = await waitFor(async () => (await detail(created.id)).serverTime as string | undefined, "serverTime");
        expect(withTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/);
        expect(Math.abs(Date.parse(withTime) - Date.now())).toBeLessThan(60_000);

        const list = (await adaApi().get("/api/tradePlatforms")).json();
        expect(list).toContainEqual({ id: created.id, organizationId: adaOrg, type, name: `Sim ${type}`, enable: true, state: "connected", lastError: null });

        const connector = await t.app.platforms.connectorFor(adaOrg, created.id);
        expect((await connector.listAccounts({ limit: 1000 })).items).toHaveLength(40);

        const [audit] = await auditsOf(created.id);
        expect(audit).toMatchObject({ action: "tradePlatform.created", organizationId: adaOrg, actorSub: ada.sub, targetType: "tradePlatform" });
        expect(audit!.after).toMatchObject({ name: `Sim ${type}`, type, connection: { kind: "simulated", hasSecret: false } });
      });
    }

    it("keeps a manager password encrypted: hasSecret only, never the password", async () => {
      const created = await create("Sim with manager", "MT4", simulated({ login: "1000", password: "Manager1" }));
      expect(created.connection).toEqual({ kind: "simulated", accounts: 40, tradeRate: 0, seed: 11, login: "1000", hasSecret: true });
      await untilState(created.id, "connected");

      const row = theOnly(await t.ctx.database.db.select().from(tradePlatforms).where(eq(tradePlatforms.id, created.id)));
      expect(row.secretCiphertext).toMatch(/^v2:[\w-]+:[\w-]+:[\w-]+:[\w-]+$/);
      expect(row.secretCiphertext).not.toContain("Manager1");
      expect(JSON.stringify(row.connection)).not.toContain("Manager1");
      expect(t.app.secrets.decrypt(row.secretCiphertext!, created.id)).toBe("Manager1");
      // Bound to its platform: the same ciphertext does not open under another id.
      expect(() => t.app.secrets.decrypt(row.secretCiphertext!, adaOrg)).toThrow(/could not be decrypted/);
    });

    it("sends a stored manager password only to the server it was given for", async () => {
      const created = await create("Sim endpoint", "MT5", simulated({ login: "1000", password: "Manager1" }));
      // Same login, no password typed: the stored one is kept.
      const same = await adaApi().patch(`/api/tradePlatforms/${created.id}`, { connection: simulated({ login: "1000" }) });
      expect(same.statusCode, same.body).toBe(200);
      // Another login without typing the password again: refused, nothing changed, nothing tested.
      const moved = await adaApi().patch(`/api/tradePlatforms/${created.id}`, { connection: simulated({ login: "2000" }) });
      expect(moved.statusCode).toBe(400);
      expect(moved.json().message).toMatch(/Enter the .* again: the server address or login changed/);
      const probe = await adaApi().post("/api/tradePlatforms/test-connection", {
        type: "MT5",
        connection: simulated({ login: "2000" }),
        platformId: created.id,
      });
      expect(probe.statusCode).toBe(400);
      const row = theOnly(await t.ctx.database.db.select().from(tradePlatforms).where(eq(tradePlatforms.id, created.id)));
      expect(row.connection).toMatchObject({ login: "1000" });
    });

    it("shows refused manager credentials as a failed platform, in words", async () => {
      const created = await create("Sim refused", "MT5", simulated({ login: "1000", password: "Wr0ng-Pass!" }));
      const failed = await untilState(created.id, "failed");
      expect(failed.lastError).toMatch(/refused the manager login or password/);
      await expect(t.app.platforms.connectorFor(adaOrg, created.id)).rejects.toMatchObject({ kind: "unavailable" });
    });

    it("refuses a second platform with the same name in one organization (409), but not in another", async () => {
      await create("Same name");
      const again = await adaApi().post("/api/tradePlatforms", { type: "MT4", name: "Same name", timeZone: "UTC", connection: simulated() });
      expect(again.statusCode).toBe(409);
      expect(again.json().message).toMatch(/already exists/);
      const elsewhere = await eveApi().post("/api/tradePlatforms", { type: "MT4", name: "Same name", timeZone: "UTC", connection: simulated() });
      expect(elsewhere.statusCode).toBe(201);
    });
  });

  describe("bad input is refused with a readable 400, and nothing is written", () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["an unknown type", { type: "cTrader" }, /Type must be one of MT4, MT5, MatchTrader/],
      ["an empty name", { name: "   " }, /Name: Give the platform a name/],
      ["a made-up time zone", { timeZone: "Mars/Olympus_Mons" }, /Time zone must be an IANA time zone name/],
      ["an offset instead of a zone", { timeZone: "+02:00" }, /Time zone must be an IANA time zone name/],
      ["a negative trade rate", { connection: { kind: "simulated", tradeRate: -1 } }, /Trade rate .*cannot be negative/],
      ["too many accounts", { connection: { kind: "simulated", accounts: 100_001 } }, /at most 100000 accounts/],
      ["an unknown connection kind", { connection: { kind: "fix", address: "x:1" } }, /connection.kind must be one of/],
      [
        "a kind the type does not use",
        { type: "MT4", connection: { kind: "matchTraderApi", apiUrl: "https://api.example.com", apiKey: "mt-api-key-0123456789abcdef" } },
        /A MetaTrader 4 platform connects through the MT4 manager gateway/,
      ],
      [
        "an MT4 gateway CA certificate that is not PEM",
        {
          type: "MT4",
          connection: { kind: "mt4Gateway", address: "mt4.example.com:443", login: "1001", password: "s3cr3t-MT5-manager-pw", caCertificate: "not a cert" },
        },
        /CA certificate must be in PEM form/,
      ],
      [
        "an MT5 CA certificate that is not PEM",
        {
          type: "MT5",
          connection: { kind: "mt5WebApi", address: "mt5.example.com:443", login: "1001", password: "s3cr3t-MT5-manager-pw", caCertificate: "not a cert" },
        },
        /CA certificate must be in PEM form/,
      ],
      [
        "a Match-Trader API URL over plain HTTP (the key would travel in the clear)",
        { type: "MatchTrader", connection: { kind: "matchTraderApi", apiUrl: "http://broker.example.com", apiKey: "mt-api-key-0123456789abcdef" } },
        /API URL must be an https:\/\/ URL/,
      ],
      [
        "a bad server address",
        { type: "MT5", connection: { kind: "mt5WebApi", address: "not an address", login: "1", password: "s3cr3t-MT5-manager-pw" } },
        /address must be host:port/i,
      ],
      ["a simulated manager login without its password", { connection: { kind: "simulated", login: "1000" } }, /Enter the manager password/],
      ["a missing connection", { connection: undefined }, /connection/],
    ];
    for (const [what, change, message] of cases) {
      it(`refuses ${what}`, async () => {
        const before = await t.ctx.database.db.select().from(tradePlatforms);
        const auditsBefore = await t.ctx.database.db.select().from(auditEvents);
        const body = { type: "MT5", name: `Bad ${what}`, timeZone: "UTC", connection: simulated(), ...change };
        const res = await adaApi().post("/api/tradePlatforms", body);
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json().message).toMatch(message);
        expect(await t.ctx.database.db.select().from(tradePlatforms)).toHaveLength(before.length);
        expect(await t.ctx.database.db.select().from(auditEvents)).toHaveLength(auditsBefore.length);
      });
    }

    it("refuses bad changes too, leaving the platform as it was", async () => {
      const p = await create("Patch target");
      for (const [body, message] of [
        [{ name: "" }, /Give the platform a name/],
        [{ timeZone: "Nowhere/Land" }, /IANA time zone/],
        [{ connection: { kind: "simulated", tradeRate: -3 } }, /cannot be negative/],
        [{ enable: "yes" }, /Enable must be true or false/],
        [
          { connection: { kind: "mt5WebApi", address: "mt5.example.com:443", login: "1001", password: "s3cr3t-MT5-manager-pw", caCertificate: "x" } },
          /PEM form/,
        ],
      ] as const) {
        const res = await adaApi().patch(`/api/tradePlatforms/${p.id}`, body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json().message).toMatch(message);
      }
      const after = await detail(p.id);
      expect({ ...after, state: undefined, serverTime: undefined, lastError: undefined }).toEqual({
        ...p,
        state: undefined,
        serverTime: undefined,
        lastError: undefined,
      });
      expect((await auditsOf(p.id)).map((a) => a.action)).toEqual(["tradePlatform.created"]);
    });
  });

  describe("organizations stay apart", () => {
    it("answers 404 to another organization's member on every by-id route, and changes nothing", async () => {
      const p = await create("Ada private", "MT4");
      await untilState(p.id, "connected");
      const auditsBefore = await auditsOf(p.id);
      const eveCalls = [
        () => eveApi().get(`/api/tradePlatforms/${p.id}`),
        () => eveApi().patch(`/api/tradePlatforms/${p.id}`, { name: "Stolen", enable: false }),
        () => eveApi().delete(`/api/tradePlatforms/${p.id}`, { confirmName: "Ada private" }),
        () => eveApi().get(`/api/tradePlatforms/${p.id}/apps`),
        () => eveApi().put(`/api/tradePlatforms/${p.id}/apps`, [{ app: "tradesCopier", enabled: true }]),
        () => eveApi().post("/api/tradePlatforms/assign-application", { app: "tradesBlotter", platformIds: [p.id] }),
        () => eveApi().post("/api/tradePlatforms/test-connection", { type: "MT4", connection: { kind: "simulated" }, platformId: p.id }),
      ];
      for (const call of eveCalls) {
        const res = await call();
        expect(res.statusCode, res.body).toBe(404);
        expect(res.json().message).toBe("No such trade platform");
      }
      // Eve's own organization header with Ada's id, or Ada's organization header: Eve is no member there (404, not hers).
      const crossHeader = await as(eveToken, adaOrg).get(`/api/tradePlatforms/${p.id}`);
      expect(crossHeader.statusCode).toBe(404);

      const after = await detail(p.id);
      expect(after).toMatchObject({ name: "Ada private", enable: true, state: "connected" });
      expect(after.apps.every((a: { enabled: boolean }) => !a.enabled)).toBe(true);
      expect(await auditsOf(p.id)).toEqual(auditsBefore);
      await expect(t.app.platforms.connectorFor(eveOrg, p.id)).rejects.toMatchObject({ kind: "notFound", message: "No such trade platform" });
      expect((await eveApi().get("/api/tradePlatforms")).json().map((x: { id: string }) => x.id)).not.toContain(p.id);
    });

    it("treats a malformed id as no platform (404, not a database error)", async () => {
      for (const id of ["not-a-uuid", "00000000-0000-0000-0000-000000000000", "1' or '1'='1"]) {
        const res = await adaApi().get(`/api/tradePlatforms/${encodeURIComponent(id)}`);
        expect(res.statusCode).toBe(404);
      }
    });
  });

  describe("permissions", () => {
    it("needs tradePlatforms:write to change, tradePlatforms:read to look", async () => {
      const p = await create("Perm target");
      const reader = newPerson("Reader");
      const nobody = newPerson("Nobody");
      await addMember(t.ctx, adaOrg, reader, { [moduleClaimType("tradePlatforms", adaOrg)]: "read" });
      await addMember(t.ctx, adaOrg, nobody);
      const readerApi = as(await tokens.mint(reader), adaOrg);
      const nobodyApi = as(await tokens.mint(nobody), adaOrg);

      const post = await readerApi.post("/api/tradePlatforms", { type: "MT5", name: "Reader's", timeZone: "UTC", connection: simulated() });
      expect(post.statusCode).toBe(403);
      expect(post.json().message).toMatch(/"write" permission on the "tradePlatforms" module/);
      expect((await readerApi.patch(`/api/tradePlatforms/${p.id}`, { name: "x" })).statusCode).toBe(403);
      expect((await readerApi.delete(`/api/tradePlatforms/${p.id}`, { confirmName: "Perm target" })).statusCode).toBe(403);
      expect((await readerApi.post("/api/tradePlatforms/test-connection", { type: "MT5", connection: simulated() })).statusCode).toBe(403);
      expect((await readerApi.put(`/api/tradePlatforms/${p.id}/apps`, [])).statusCode).toBe(403);
      expect((await readerApi.get(`/api/tradePlatforms/${p.id}`)).statusCode).toBe(200);
      expect((await readerApi.get(`/api/tradePlatforms/${p.id}/apps`)).statusCode).toBe(200);

      expect((await nobodyApi.get(`/api/tradePlatforms/${p.id}`)).statusCode).toBe(403);
      expect((await nobodyApi.post("/api/tradePlatforms", { type: "MT5", name: "Nobody's", timeZone: "UTC", connection: simulated() })).statusCode).toBe(403);
      expect(await t.ctx.database.db.select().from(tradePlatforms).where(eq(tradePlatforms.name, "Reader's"))).toHaveLength(0);
      expect((await detail(p.id)).name).toBe("Perm target");
    });
  });

  describe("changes", () => {
    it("renames, moves the time zone, reconnects on a connection change, and disables / enables — each audited", async () => {
      const p = await create("Changing", "MT5");
      await untilState(p.id, "connected");
      const firstConnector = await t.app.platforms.connectorFor(adaOrg, p.id);

      const renamed = await adaApi().patch(`/api/tradePlatforms/${p.id}`, { name: "Changed", timeZone: "europe/london" });
      expect(renamed.statusCode, renamed.body).toBe(200);
      expect(renamed.json()).toMatchObject({ name: "Changed", timeZone: "Europe/London" });

      const reconnected = await adaApi().patch(`/api/tradePlatforms/${p.id}`, { connection: { kind: "simulated", accounts: 25 } });
      expect(reconnected.json().connection).toEqual({ kind: "simulated", accounts: 25, tradeRate: 0, seed: 11, hasSecret: false });
      await untilState(p.id, "connected");
      const secondConnector = await t.app.platforms.connectorFor(adaOrg, p.id);
      expect(secondConnector).not.toBe(firstConnector);
      expect((await secondConnector.listAccounts({ limit: 1000 })).items).toHaveLength(25);

      const disabled = await adaApi().patch(`/api/tradePlatforms/${p.id}`, { enable: false });
      expect(disabled.json()).toMatchObject({ enable: false, state: "disconnected", lastError: null });
      await expect(t.app.platforms.connectorFor(adaOrg, p.id)).rejects.toMatchObject({ kind: "conflict", message: /Changed is disabled/ });

      const enabled = await adaApi().patch(`/api/tradePlatforms/${p.id}`, { enable: true });
      expect(enabled.json().enable).toBe(true);
      await untilState(p.id, "connected");

      // No change (the form sends everything back as it was): no audit record, no reconnect.
      const connectorBefore = await t.app.platforms.connectorFor(adaOrg, p.id);
      const same = await adaApi().patch(`/api/tradePlatforms/${p.id}`, {
        name: "Changed",
        enable: true,
        timeZone: "Europe/London",
        connection: { kind: "simulated", seed: 11, tradeRate: 0, accounts: 25 },
      });
      expect(same.statusCode).toBe(200);
      expect(await t.app.platforms.connectorFor(adaOrg, p.id)).toBe(connectorBefore);

      const audits = await auditsOf(p.id);
      expect(audits.map((a) => a.action)).toEqual([
        "tradePlatform.created",
        "tradePlatform.updated",
        "tradePlatform.updated",
        "tradePlatform.disabled",
        "tradePlatform.enabled",
      ]);
      expect(audits[1]!.before).toMatchObject({ name: "Changing", timeZone: "Europe/Athens" });
      expect(audits[1]!.after).toMatchObject({ name: "Changed", timeZone: "Europe/London" });
      expect(audits[2]!.before).toMatchObject({ connection: { accounts: 40 } });
      expect(audits[2]!.after).toMatchObject({ connection: { accounts: 25 } });
      expect(audits[3]).toMatchObject({ before: { enable: true }, after: { enable: false } });
      expect(audits.every((a) => a.sourceIp !== null && a.actorSub === ada.sub)).toBe(true);
    });

    it("options changed twice in a row: the simulated server of the last ones runs, not the one still starting for the first", async () => {
      const p = await create("Twice", "MT5");
      await untilState(p.id, "connected");
      const first = await t.app.platforms.connectorFor(adaOrg, p.id);
      // The zone restarts the simulated server; the size changes it again before that start is done.
      const [zone, size] = await Promise.all([
        adaApi().patch(`/api/tradePlatforms/${p.id}`, { timeZone: "Europe/London" }),
        adaApi().patch(`/api/tradePlatforms/${p.id}`, { connection: { kind: "simulated", accounts: 25 } }),
      ]);
      expect([zone.statusCode, size.statusCode]).toEqual([200, 200]);
      expect((await detail(p.id)).timeZone).toBe("Europe/London");
      const accounts = await waitFor(async () => {
        const connector = await t.app.platforms.connectorFor(adaOrg, p.id).catch(() => undefined);
        if (!connector || connector === first) return undefined;
        return (await connector.listAccounts({ limit: 1000 }).catch(() => undefined))?.items;
      }, "the platform's new connection answering");
      expect(accounts).toHaveLength(25);
    });

    it("keeps the stored password when a change leaves it out, replaces it when given, and audits no secret", async () => {
      const p = await create("Secret keeper", "MT4", simulated({ login: "1000", password: "Wr0ng-Pass!" }));
      await untilState(p.id, "failed");
      const fixed = await adaApi().patch(`/api/tradePlatforms/${p.id}`, { connection: { kind: "simulated", login: "1000", password: "Manager1" } });
      expect(fixed.json().connection.hasSecret).toBe(true);
      await untilState(p.id, "connected");
      // Name change only: the connection (and its secret) stay.
      await adaApi().patch(`/api/tradePlatforms/${p.id}`, { connection: { kind: "simulated", login: "1000", tradeRate: 1 } });
      await untilState(p.id, "connected");
      const audits = await auditsOf(p.id);
      expect(audits.at(-2)!.after).toMatchObject({ secretReplaced: true, connection: { hasSecret: true } });
      expect(audits.at(-1)!.after).not.toHaveProperty("secretReplaced");
      // Dropping the login drops the secret.
      const builtIn = await adaApi().patch(`/api/tradePlatforms/${p.id}`, { connection: { kind: "simulated" } });
      expect(builtIn.json().connection).toMatchObject({ hasSecret: false });
      expect(builtIn.json().connection).not.toHaveProperty("login");
      const row = theOnly(await t.ctx.database.db.select().from(tradePlatforms).where(eq(tradePlatforms.id, p.id)));
      expect(row.secretCiphertext).toBeNull();
    });

    it("deletes only with the exact name, then disconnects and forgets the platform and its apps", async () => {
      const p = await create("Doomed", "MatchTrader");
      await untilState(p.id, "connected");
      await adaApi().put(`/api/tradePlatforms/${p.id}/apps`, [{ app: "tradesBlotter", enabled: true }]);
      const removed: string[] = [];
      const removals = t.app.bus.subscribe({ types: ["platformRemoved"] }, ({ event }) => removed.push(event.platformId));

      for (const confirmName of ["doomed", "Doomed ", ""]) {
        const wrong = await adaApi().delete(`/api/tradePlatforms/${p.id}`, { confirmName });
        expect(wrong.statusCode).toBe(400);
        expect(wrong.json().message).toBe("Type the platform's name to confirm");
      }
      expect((await adaApi().delete(`/api/tradePlatforms/${p.id}`, {})).statusCode).toBe(400);
      expect((await detail(p.id)).state).toBe("connected");

      const res = await adaApi().delete(`/api/tradePlatforms/${p.id}`, { confirmName: "Doomed" });
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe("");
      expect((await adaApi().get(`/api/tradePlatforms/${p.id}`)).statusCode).toBe(404);
      expect((await adaApi().delete(`/api/tradePlatforms/${p.id}`, { confirmName: "Doomed" })).statusCode).toBe(404);
      expect(t.app.platforms.state(p.id)).toEqual({ state: "disconnected", lastError: null });
      expect(t.app.platforms.simulatedServer(p.id)).toBeUndefined();
      expect(removed).toEqual([p.id]);
      removals.close();
      expect(await t.ctx.database.db.select().from(tradePlatformApps).where(eq(tradePlatformApps.platformId, p.id))).toEqual([]);
      const audits = await auditsOf(p.id);
      expect(audits.map((a) => a.action)).toEqual(["tradePlatform.created", "tradePlatform.appsAssigned", "tradePlatform.deleted"]);
      expect(audits.at(-1)!.before).toMatchObject({ name: "Doomed", type: "MatchTrader" });
    });
  });

  describe("applications", () => {
    it("switches apps per platform and assigns one app to several platforms, audited", async () => {
      const a = await create("Apps A");
      const b = await create("Apps B", "MT4");
      expect((await adaApi().get(`/api/tradePlatforms/${a.id}/apps`)).json()).toEqual([
        { app: "tradesBlotter", enabled: false },
        { app: "tradesCopier", enabled: false },
        { app: "quotesMonitor", enabled: false },
      ]);
      const put = await adaApi().put(`/api/tradePlatforms/${a.id}/apps`, [{ app: "tradesCopier", enabled: true }]);
      expect(put.json()).toEqual([
        { app: "tradesBlotter", enabled: false },
        { app: "tradesCopier", enabled: true },
        { app: "quotesMonitor", enabled: false },
      ]);
      expect((await adaApi().put(`/api/tradePlatforms/${a.id}/apps`, [{ app: "dealing", enabled: true }])).statusCode).toBe(400);

      const assign = await adaApi().post("/api/tradePlatforms/assign-application", { app: "tradesBlotter", platformIds: [a.id, b.id] });
      expect(assign.statusCode, assign.body).toBe(200);
      expect(assign.json()).toEqual([
        { platformId: a.id, app: "tradesBlotter", enabled: true },
        { platformId: b.id, app: "tradesBlotter", enabled: true },
      ]);
      expect((await detail(b.id)).apps).toEqual([
        { app: "tradesBlotter", enabled: true },
        { app: "tradesCopier", enabled: false },
        { app: "quotesMonitor", enabled: false },
      ]);

      // One foreign (or unknown) id among them: 404 and nothing assigned.
      const c = await create("Apps C");
      const eveP = (await eveApi().post("/api/tradePlatforms", { type: "MT5", name: "Eve's", timeZone: "UTC", connection: simulated() })).json();
      const mixed = await adaApi().post("/api/tradePlatforms/assign-application", { app: "tradesCopier", platformIds: [c.id, eveP.id] });
      expect(mixed.statusCode).toBe(404);
      expect((await detail(c.id)).apps.find((x: { app: string }) => x.app === "tradesCopier").enabled).toBe(false);

      expect((await auditsOf(a.id)).map((x) => x.action)).toEqual(["tradePlatform.created", "tradePlatform.appsAssigned", "tradePlatform.appsAssigned"]);
      expect((await auditsOf(c.id)).map((x) => x.action)).toEqual(["tradePlatform.created"]);
    });
  });

  describe("test connection", () => {
    const test = (body: unknown) => adaApi().post("/api/tradePlatforms/test-connection", body);

    it("tries a simulated server for real and reports its clock and accounts", async () => {
      const res = await test({ type: "MT5", timeZone: "Europe/Athens", connection: { kind: "simulated", accounts: 120 } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ ok: true, accounts: 120 });
      expect(res.json().serverTime).toMatch(/[+-]0[23]:00$/);
      const withManager = await test({ type: "MT4", connection: { kind: "simulated", login: "1000", password: "Manager1" } });
      expect(withManager.json()).toMatchObject({ ok: true, accounts: 300 });
      expect(withManager.json().serverTime).toMatch(/\+00:00$/);
    });

    it("explains refused credentials, an unreachable server and a silent one, in a dealer's words", async () => {
      const refused = await test({ type: "MatchTrader", connection: { kind: "simulated", login: "1000", password: "Wr0ng-Pass!" } });
      expect(refused.json()).toEqual({
        ok: false,
        code: "credentialsRefused",
        message: "The manager login or password was refused. Check them, and that this manager may connect from Toolbox's address.",
      });

      const p = await create("Faulty", "MT5", simulated({ login: "1000", password: "Manager1" }));
      await untilState(p.id, "connected");
      const server = t.app.platforms.simulatedServer(p.id)!;
      try {
        // The saved platform's own server, with its stored password (left out here).
        const ok = await test({ type: "MT5", connection: { kind: "simulated", accounts: 40, tradeRate: 0, seed: 11, login: "1000" }, platformId: p.id });
        expect(ok.json()).toMatchObject({ ok: true, accounts: 40 });

        server.faults.disconnect({ refuseReconnect: true });
        const down = await test({ type: "MT5", connection: { kind: "simulated", accounts: 40, tradeRate: 0, seed: 11, login: "1000" }, platformId: p.id });
        expect(down.json()).toMatchObject({ ok: false, code: "unreachable" });
        expect(down.json().message).toMatch(/did not accept the connection/);
        const failing = await waitFor(async () => {
          const d = await detail(p.id);
          return d.state !== "connected" && d.lastError ? d : undefined;
        }, "platform to notice the outage");
        expect(failing.lastError).toMatch(/could not be reached|lost/);

        server.faults.restore();
        server.faults.slowAnswers(2_500);
        const slow = await test({ type: "MT5", connection: { kind: "simulated", accounts: 40, tradeRate: 0, seed: 11, login: "1000" }, platformId: p.id });
        expect(slow.json()).toEqual({
          ok: false,
          code: "timeout",
          message: "The server did not answer within 1.5 seconds. It may be overloaded, or a firewall may be dropping the connection.",
        });
      } finally {
        server.faults.restore();
      }
      await untilState(p.id, "connected");
    });

    it("tries a real server only where Toolbox may connect, and answers 400 for missing secrets", async () => {
      const real = await test({ type: "MT4", connection: { kind: "mt4Gateway", address: "10.0.0.1:443", login: "1", password: "s3cr3t-MT5-manager-pw" } });
      expect(real.statusCode).toBe(200);
      expect(real.json()).toMatchObject({ ok: false, code: "invalidRequest", message: expect.stringMatching(/TRADE_SERVER_ALLOWED_TARGETS/) });
      const noSecret = await test({ type: "MT4", connection: { kind: "simulated", login: "1000" } });
      expect(noSecret.statusCode).toBe(400);
      expect(noSecret.json().message).toBe("Enter the manager password for this connection.");
    });
  });

  describe("connectorFor", () => {
    it("hands out the connector of the organization's enabled, connected platform only", async () => {
      const p = await create("Handout", "MT4");
      const connector = await t.app.platforms.connectorFor(adaOrg, p.id);
      expect(connector.state).toBe("connected");
      expect(connector.platform).toBe("MT4");
      await expect(t.app.platforms.connectorFor(adaOrg, "nope")).rejects.toMatchObject({ kind: "notFound" });
      await expect(t.app.platforms.connectorFor(eveOrg, p.id)).rejects.toMatchObject({ kind: "notFound" });
      const connected: string[] = [];
      const unlisten = t.app.platforms.onConnected((platform) => connected.push(platform.id));
      expect(connected).toContain(p.id);
      unlisten();
    });
  });

  describe("secrets", () => {
    it("never appear in any response or in the log", async () => {
      const [bodiesBefore, logsBefore] = [t.bodies.length, t.logs.length];
      // Every way a secret reaches the API: created, refused, replaced, tried, and refused as bad input.
      const kept = await create("Secret MT4", "MT4", simulated({ login: "1000", password: "Manager1" }));
      const refused = await create("Secret refused", "MT5", simulated({ login: "1000", password: "Wr0ng-Pass!" }));
      await untilState(kept.id, "connected");
      expect((await untilState(refused.id, "failed")).lastError).toMatch(/refused/);
      const replaced = await adaApi().patch(`/api/tradePlatforms/${refused.id}`, { connection: simulated({ login: "1000", password: "Manager1" }) });
      expect(replaced.statusCode, replaced.body).toBe(200);
      await untilState(refused.id, "connected");
      const tried = await adaApi().post("/api/tradePlatforms/test-connection", {
        type: "MT4",
        connection: simulated({ login: "1000", password: "Wr0ng-Pass!" }),
      });
      expect(tried.json()).toMatchObject({ ok: false, code: "credentialsRefused" });
      const bad = [
        {
          type: "MT4",
          connection: { kind: "mt4Gateway", address: "mt4.example.com:443", login: "1001", password: "s3cr3t-MT5-manager-pw", caCertificate: "not a cert" },
        },
        { type: "MatchTrader", connection: { kind: "matchTraderApi", apiUrl: "http://broker.example.com", apiKey: "mt-api-key-0123456789abcdef" } },
        { type: "MT4", connection: { kind: "matchTraderApi", apiUrl: "https://api.example.com", apiKey: "mt-api-key-0123456789abcdef" } },
      ];
      for (const body of bad) {
        expect((await adaApi().post("/api/tradePlatforms", { name: "Secret bad", timeZone: "UTC", ...body })).statusCode).toBe(400);
        expect((await adaApi().post("/api/tradePlatforms/test-connection", body)).statusCode).toBe(400);
      }
      await adaApi().get(`/api/tradePlatforms/${kept.id}`);
      await adaApi().get("/api/tradePlatforms");

      const bodies = t.bodies.slice(bodiesBefore);
      const logs = t.logs.slice(logsBefore);
      expect(bodies.length).toBeGreaterThanOrEqual(12);
      // The requests above were logged (so a secret in them would be found here).
      expect(logs.join("\n")).toContain("/api/tradePlatforms/test-connection");
      const everything = [...bodies, ...logs].join("\n");
      for (const secret of SECRETS) expect(everything, secret).not.toContain(secret);
      const audits = JSON.stringify(await t.ctx.database.db.select().from(auditEvents).where(eq(auditEvents.organizationId, adaOrg)));
      expect(audits).toContain("Secret MT4");
      for (const secret of SECRETS) expect(audits, secret).not.toContain(secret);
    });

    it("are redacted from anything logged with a request body", async () => {
      const before = t.logs.length;
      t.app.log.info({ body: { connection: { password: "Manager1", apiKey: "mt-api-key-0123456789abcdef" } } }, "a careless line");
      const line = t.logs.slice(before).join("\n");
      expect(line).toContain("a careless line");
      expect(line).toContain("[Redacted]");
      for (const secret of SECRETS) expect(line).not.toContain(secret);
    });
  });

  it("writes each audit row in the organization that acted, and none in another", async () => {
    const adas = await create("Ada audited");
    const eves = (await eveApi().post("/api/tradePlatforms", { type: "MT4", name: "Eve audited", timeZone: "UTC", connection: simulated() })).json();
    expect((await eveApi().patch(`/api/tradePlatforms/${eves.id}`, { name: "Eve renamed" })).statusCode).toBe(200);
    // Eve tries Ada's platform: refused, and no row anywhere.
    expect((await eveApi().patch(`/api/tradePlatforms/${adas.id}`, { name: "Eve's now" })).statusCode).toBe(404);

    const rowsOf = async (organizationId: string) =>
      (await t.ctx.database.db.select().from(auditEvents).where(eq(auditEvents.organizationId, organizationId)).orderBy(auditEvents.at)).map((r) => ({
        action: r.action,
        targetId: r.targetId,
        actorSub: r.actorSub,
      }));
    expect(await rowsOf(eveOrg)).toEqual([
      { action: "tradePlatform.created", targetId: eves.id, actorSub: eve.sub },
      { action: "tradePlatform.updated", targetId: eves.id, actorSub: eve.sub },
    ]);
    expect(await rowsOf(adaOrg)).toEqual([{ action: "tradePlatform.created", targetId: adas.id, actorSub: ada.sub }]);
  });
});
