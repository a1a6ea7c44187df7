/**
 * The Trades Copier's copy links through the API (docs/trades-copier.md "Links and the screen"), on both databases:
 * a link from a simulated MT5 account to a simulated Match-Trader account, every validation rule
 * with the field it names, one organization never reaching another's platforms or links, a member
 * without tradesCopier:write changing nothing, optimistic concurrency (If-Match → 409), and an
 * audit row with before and after for every change.
 */
import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { moduleClaimType } from "../../core/access.ts";
import { auditEvents } from "../../server/db/schema.ts";
import { describeDb } from "../helpers/db.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, rowCounts, signUp } from "./support/fixtures.ts";
import { startPlatformsApp, type PlatformsApp } from "./platformsHarness.ts";

const LINKS = "/api/tradesCopier/links";
// The simulated servers' first logins (server/connectors/simulated/flavour.ts).
const MT5 = ["100001", "100002", "100003", "100004"];
const MTR = ["300001", "300002", "300003"];

describeDb("Trades Copier links API", () => {
  let t: PlatformsApp;
  let tokens: TokenFactory;
  const ada = newPerson("Ada");
  const eve = newPerson("Eve");
  let adaOrg: string;
  let eveOrg: string;
  let mt5: string;
  let mtr: string;
  let bare: string;
  let evePlatform: string;

  const as = (person: Person, org: string) => {
    const headers = async (extra: Record<string, string> = {}) => ({ ...apiHeaders(await tokens.mint(person), org), ...extra });
    return {
      get: async (url: string) => t.call({ method: "GET", url, headers: await headers() }),
      post: async (url: string, payload: unknown) => t.call({ method: "POST", url, payload: payload as object, headers: await headers() }),
      put: async (url: string, payload: unknown, extra?: Record<string, string>) =>
        t.call({ method: "PUT", url, payload: payload as object, headers: await headers(extra) }),
      delete: async (url: string, extra?: Record<string, string>) => t.call({ method: "DELETE", url, headers: await headers(extra) }),
    };
  };
  const adaApi = () => as(ada, adaOrg);

  async function platform(api: ReturnType<typeof as>, type: "MT5" | "MatchTrader", name: string, copier: boolean) {
    const res = await api.post("/api/tradePlatforms", { type, name, timeZone: "UTC", connection: { kind: "simulated", accounts: 5, tradeRate: 0, seed: 3 } });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().id as string;
    if (copier) expect((await api.put(`/api/tradePlatforms/${id}/apps`, [{ app: "tradesCopier", enabled: true }])).statusCode).toBe(200);
    return id;
  }

  const acct = (platformId: string, login: string) => ({ platformId, login });
  const body = (name: string, source: { platformId: string; login: string }, followers: unknown[]) => ({ name, source, followers });

  beforeAll(async () => {
    t = await startPlatformsApp();
    tokens = await tokenFactory(t.ctx);
    adaOrg = await signUp(t, tokens, ada);
    eveOrg = await signUp(t, tokens, eve);
    mt5 = await platform(adaApi(), "MT5", "Demo MT5", true);
    mtr = await platform(adaApi(), "MatchTrader", "Demo MTR", true);
    bare = await platform(adaApi(), "MT5", "No copier", false);
    evePlatform = await platform(as(eve, eveOrg), "MT5", "Eve's MT5", true);
  });
  afterAll(async () => {
    await t?.close();
    await t?.drop();
  });

  it("creates a link from an MT5 account to a Match-Trader account with multiplier 2, reads it back with every setting's default, and lists it", async () => {
    const res = await adaApi().post(
      LINKS,
      body("MT5 to MTR", acct(mt5, MT5[0]!), [{ account: acct(mtr, MTR[0]!), volume: { mode: "multiplier", multiplier: 2 } }]),
    );
    expect(res.statusCode, res.body).toBe(201);
    const link = res.json();
    expect(res.headers.etag).toBe('"1"');
    expect(link).toMatchObject({ name: "MT5 to MTR", enabled: true, version: 1, source: acct(mt5, MT5[0]!) });
    expect(link.followers).toEqual([
      {
        account: acct(mtr, MTR[0]!),
        enabled: true,
        volume: { mode: "multiplier", multiplier: 2 },
        alignContractSize: true,
        minLots: null,
        maxLots: null,
        forceMinimum: false,
        direction: "same",
        symbols: { pairs: [], sourcePrefix: "", sourceSuffix: "", followerPrefix: "", followerSuffix: "" },
        allowedSymbols: "",
        blockedSymbols: "",
        stops: { mode: "copy" },
        copyPendingOrders: true,
        copyPartialCloses: true,
        copyExistingPositions: false,
        maxDelaySeconds: null,
        maxDeviationPoints: null,
        equityFloor: null,
        dailyLossLimit: null,
        closeOnly: false,
      },
    ]);
    const one = await adaApi().get(`${LINKS}/${link.id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual(link);
    expect((await adaApi().get(LINKS)).json().map((l: { id: string }) => l.id)).toContain(link.id);
    await adaApi().delete(`${LINKS}/${link.id}`);
  });

  describe("validation, each rule naming its field", () => {
    async function refused(payload: unknown, status: number, message: RegExp, path?: string) {
      const before = await rowCounts(t.ctx);
      const res = await adaApi().post(LINKS, payload);
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json().message).toMatch(message);
      if (path) expect(res.json().issues.map((i: { path: string }) => i.path)).toContain(path);
      expect(await rowCounts(t.ctx)).toEqual(before);
      return res.json();
    }

    it("an account cannot follow itself, nor follow one link twice", async () => {
      await refused(body("Self", acct(mt5, MT5[0]!), [{ account: acct(mt5, MT5[0]!) }]), 400, /An account cannot follow itself/, "body.followers.0.account");
      await refused(
        body("Twice", acct(mt5, MT5[0]!), [{ account: acct(mtr, MTR[0]!) }, { account: acct(mtr, MTR[0]!) }]),
        400,
        /This account already follows this link/,
        "body.followers.1.account",
      );
    });

    it("a platform without the Trades Copier is refused with how to fix it; another organization's platform is not found", async () => {
      await refused(
        body("Bare", acct(mt5, MT5[0]!), [{ account: acct(bare, MT5[1]!) }]),
        400,
        /The Trades Copier is not assigned to No copier: assign the app to the platform first/,
        "body.followers.0.account",
      );
      await refused(body("Eve's", acct(mt5, MT5[0]!), [{ account: acct(evePlatform, MT5[1]!) }]), 404, /No such platform/);
      await refused(body("Eve's source", acct(evePlatform, MT5[0]!), [{ account: acct(mtr, MTR[1]!) }]), 404, /No such platform/);
    });

    it("an account its platform does not have is refused by name", async () => {
      await refused(body("Ghost", acct(mt5, MT5[0]!), [{ account: acct(mtr, "399999") }]), 400, /^No account 399999 on Demo MTR$/, "body.followers.0.account");
      await refused(body("Ghost source", acct(mt5, "199999"), [{ account: acct(mtr, MTR[0]!) }]), 400, /^No account 199999 on Demo MT5$/, "body.source");
    });

    it("links cannot form a cycle, of two links or longer, across the organization's links", async () => {
      const ab = await adaApi().post(LINKS, body("A to B", acct(mt5, MT5[1]!), [{ account: acct(mtr, MTR[1]!) }]));
      expect(ab.statusCode, ab.body).toBe(201);
      await refused(
        body("B to A", acct(mtr, MTR[1]!), [{ account: acct(mt5, MT5[1]!) }]),
        400,
        /^Links cannot form a cycle: Demo MTR 300002 → Demo MT5 100002 → Demo MTR 300002$/,
        "body.followers.0.account",
      );
      const bc = await adaApi().post(LINKS, body("B to C", acct(mtr, MTR[1]!), [{ account: acct(mt5, MT5[2]!) }]));
      expect(bc.statusCode, bc.body).toBe(201);
      await refused(
        body("C to A", acct(mt5, MT5[2]!), [{ account: acct(mtr, MTR[2]!) }, { account: acct(mt5, MT5[1]!) }]),
        400,
        /^Links cannot form a cycle: Demo MT5 100003 → Demo MT5 100002 → Demo MTR 300002 → Demo MT5 100003$/,
        "body.followers.1.account",
      );
      // An edit that closes the cycle is refused too; a chain without one is fine.
      const edit = await adaApi().put(
        `${LINKS}/${ab.json().id}`,
        body("A to B", acct(mt5, MT5[1]!), [{ account: acct(mtr, MTR[1]!) }, { account: acct(mt5, MT5[3]!) }]),
        {
          "if-match": '"1"',
        },
      );
      expect(edit.statusCode, edit.body).toBe(200);
      const closing = await adaApi().put(`${LINKS}/${bc.json().id}`, body("B to C", acct(mtr, MTR[1]!), [{ account: acct(mt5, MT5[1]!) }]), {
        "if-match": '"1"',
      });
      expect(closing.statusCode).toBe(400);
      expect(closing.json().message).toMatch(/^Links cannot form a cycle/);
      for (const id of [ab.json().id, bc.json().id]) expect((await adaApi().delete(`${LINKS}/${id}`)).statusCode).toBe(204);
    });
  });

  it("another organization's link is not found, to read, change or delete", async () => {
    const res = await adaApi().post(LINKS, body("Ada's", acct(mt5, MT5[0]!), [{ account: acct(mtr, MTR[0]!) }]));
    const id = res.json().id as string;
    const eveApi = as(eve, eveOrg);
    const before = await rowCounts(t.ctx);
    expect((await eveApi.get(`${LINKS}/${id}`)).statusCode).toBe(404);
    expect((await eveApi.get(LINKS)).json()).toEqual([]);
    expect(
      (await eveApi.put(`${LINKS}/${id}`, body("Mine", acct(evePlatform, MT5[0]!), [{ account: acct(evePlatform, MT5[1]!) }]), { "if-match": '"1"' }))
        .statusCode,
    ).toBe(404);
    expect((await eveApi.put(`${LINKS}/${id}/enabled`, { enabled: false })).statusCode).toBe(404);
    expect((await eveApi.delete(`${LINKS}/${id}`)).statusCode).toBe(404);
    expect(await rowCounts(t.ctx)).toEqual(before);
    await adaApi().delete(`${LINKS}/${id}`);
  });

  it("reads with tradesCopier:read; only tradesCopier:write changes links", async () => {
    const reader = newPerson("Reader");
    const writer = newPerson("Writer");
    const nobody = newPerson("Nobody");
    await addMember(t.ctx, adaOrg, reader, { [moduleClaimType("tradesCopier", adaOrg)]: "read" });
    await addMember(t.ctx, adaOrg, writer, { [moduleClaimType("tradesCopier", adaOrg)]: "read,write" });
    await addMember(t.ctx, adaOrg, nobody);
    const link = (await adaApi().post(LINKS, body("Guarded", acct(mt5, MT5[0]!), [{ account: acct(mtr, MTR[0]!) }]))).json();
    const url = `${LINKS}/${link.id}`;
    expect((await as(nobody, adaOrg).get(LINKS)).statusCode).toBe(403);
    const readerApi = as(reader, adaOrg);
    expect((await readerApi.get(url)).statusCode).toBe(200);
    const before = await rowCounts(t.ctx);
    expect((await readerApi.post(LINKS, body("Reader's", acct(mt5, MT5[1]!), [{ account: acct(mtr, MTR[1]!) }]))).statusCode).toBe(403);
    expect((await readerApi.put(url, body("Renamed", acct(mt5, MT5[0]!), [{ account: acct(mtr, MTR[0]!) }]), { "if-match": '"1"' })).statusCode).toBe(403);
    expect((await readerApi.put(`${url}/enabled`, { enabled: false })).statusCode).toBe(403);
    expect((await readerApi.put(`${url}/followers/${mtr}/${MTR[0]}/enabled`, { enabled: false })).statusCode).toBe(403);
    expect((await readerApi.delete(url)).statusCode).toBe(403);
    expect(await rowCounts(t.ctx)).toEqual(before);
    expect((await as(writer, adaOrg).put(`${url}/enabled`, { enabled: false })).statusCode).toBe(200);
    expect((await as(writer, adaOrg).delete(url)).statusCode).toBe(204);
  });

  it("a change names the version it read: a stale one is refused with 409 and changes nothing; none at all is 400", async () => {
    const link = (await adaApi().post(LINKS, body("Versioned", acct(mt5, MT5[0]!), [{ account: acct(mtr, MTR[0]!) }]))).json();
    const url = `${LINKS}/${link.id}`;
    const change = (name: string) => body(name, acct(mt5, MT5[0]!), [{ account: acct(mtr, MTR[0]!), volume: { mode: "fixed", lots: "0.10" } }]);
    const first = await adaApi().put(url, change("First"), { "if-match": '"1"' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ name: "First", version: 2 });
    expect(first.headers.etag).toBe('"2"');
    const stale = await adaApi().put(url, change("Second"), { "if-match": '"1"' });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().message).toMatch(/Someone else changed this link since you opened it/);
    expect((await adaApi().put(url, change("Third"), {})).statusCode).toBe(400);
    expect((await adaApi().delete(url, { "if-match": '"1"' })).statusCode).toBe(409);
    expect((await adaApi().get(url)).json()).toMatchObject({ name: "First", version: 2 });
    // Toggles move the version too.
    expect((await adaApi().put(`${url}/followers/${mtr}/${MTR[0]}/enabled`, { enabled: false }, { "if-match": '"2"' })).json()).toMatchObject({
      version: 3,
      followers: [{ enabled: false }],
    });
    expect((await adaApi().put(`${url}/followers/${mtr}/${MTR[2]}/enabled`, { enabled: false })).statusCode).toBe(404);
    expect((await adaApi().put(`${url}/enabled`, { enabled: false }, { "if-match": '"2"' })).statusCode).toBe(409);
    expect((await adaApi().put(`${url}/enabled`, { enabled: false }, { "if-match": 'W/"3"' })).json()).toMatchObject({ enabled: false, version: 4 });
    await adaApi().delete(url);
  });

  it("audits every change with before and after", async () => {
    const created = (await adaApi().post(LINKS, body("Audited", acct(mt5, MT5[0]!), [{ account: acct(mtr, MTR[0]!) }]))).json();
    const url = `${LINKS}/${created.id}`;
    const updated = (
      await adaApi().put(url, body("Audited 2", acct(mt5, MT5[0]!), [{ account: acct(mtr, MTR[0]!), direction: "reverse" }]), { "if-match": '"1"' })
    ).json();
    const disabled = (await adaApi().put(`${url}/enabled`, { enabled: false })).json();
    const followerOff = (await adaApi().put(`${url}/followers/${mtr}/${MTR[0]}/enabled`, { enabled: false })).json();
    // The audit log names the link as it is called now, not by its id.
    const log = (await adaApi().get(`/api/logs/audit?target=copyLink`)).json<{ items: { targetId: string; targetName: string | null }[] }>();
    expect(log.items.filter((i) => i.targetId === created.id).map((i) => i.targetName)).toEqual(Array(4).fill("Audited 2"));
    expect((await adaApi().delete(url)).statusCode).toBe(204);
    const rows = await t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.organizationId, adaOrg), eq(auditEvents.targetId, created.id)))
      .orderBy(asc(auditEvents.at));
    expect(rows.map((r) => [r.action, r.targetType, r.before, r.after])).toEqual([
      ["copyLink.created", "copyLink", null, created],
      ["copyLink.updated", "copyLink", created, updated],
      ["copyLink.disabled", "copyLink", updated, disabled],
      ["copyLink.followerDisabled", "copyLink", disabled, followerOff],
      ["copyLink.deleted", "copyLink", followerOff, null],
    ]);
    expect(rows.every((r) => r.actorSub === ada.sub)).toBe(true);
  });
});
