/**
 * /api/tradePlatforms/{id}/dealing through the real app (docs/dealing.md): profiles and schedule
 * stored and read back with the profile in force, why and the next switch; every change audited
 * with before/after; `Module.dealing` read/write; another organization's platform is 404; bad
 * input a readable 400 that changes nothing; an override wins until its end. The switch: two
 * schedulers (two nodes) ticking at the same instant record it once, audit it once and put it in
 * the inbox once; the simulated server then fills BTCUSD with the profile's markup, refuses an
 * oversized order and a stale quote, and a fresh scheduler (a restart) puts the same profile in force.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { moduleClaimType } from "../../core/access.ts";
import type { DealingView } from "../../core/dealing/index.ts";
import { dealingProfileOf } from "../../server/connectors/simulated/engine/dealing.ts";
import { auditEvents, dealingSwitches } from "../../server/db/schema.ts";
import { DealingScheduler, dealingSchedulerDepsOf, dealingSchedulerOf } from "../../server/modules/dealing/scheduler.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

const profile = (name: string, extra: object = {}) => ({
  name,
  markups: [],
  maxDeviationPoints: null,
  executionDelayMs: 0,
  maxVolumeLots: null,
  staleQuoteMs: null,
  ...extra,
});
const NEWS = profile("news", {
  markups: [
    { kind: "group", target: "Crypto", bidPoints: 100, askPoints: 100 },
    { kind: "symbol", target: "BTCUSD", bidPoints: 500, askPoints: 1500 },
  ],
  maxVolumeLots: 1,
  staleQuoteMs: 60_000,
});

describeDb("dealing: execution profiles, schedule, override and the switch", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const ada = newPerson("Ada Owner");
  const reader = newPerson("Rita Reader");
  const other = newPerson("Otto Other");
  const eve = newPerson("Eve Elsewhere");
  let org: string;
  let eveOrg: string;
  let mt5: string;

  const call = async (method: "GET" | "PUT" | "POST" | "DELETE", url: string, payload?: unknown, person: Person = ada, organization = org) =>
    t.app.inject({
      method,
      url,
      headers: apiHeaders(await tokens.mint(person), organization),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const audits = () =>
    t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.organizationId, org), eq(auditEvents.targetType, "dealing"), eq(auditEvents.targetId, mt5)));

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, ada);
    eveOrg = await signUp(t, tokens, eve);
    await addMember(t.ctx, org, reader, { [moduleClaimType("dealing", org)]: "read" });
    await addMember(t.ctx, org, other, { [moduleClaimType("tradePlatforms", org)]: "write" });
    const res = await call("POST", "/api/tradePlatforms", {
      type: "MT5",
      name: "Sim MT5",
      timeZone: "Europe/London",
      connection: { kind: "simulated", accounts: 5, tradeRate: 0 },
    });
    expect(res.statusCode, res.body).toBe(201);
    mt5 = res.json<{ id: string }>().id;
  }, 60_000);
  afterAll(() => t?.close());

  it("starts with the default profile; stores profiles and a schedule, answers the profile in force and the next switch, audited", async () => {
    const first = await call("GET", `/api/tradePlatforms/${mt5}/dealing`);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json<DealingView>()).toMatchObject({
      timeZone: "Europe/London",
      settings: { defaultProfile: "normal", schedule: [] },
      override: null,
      active: { profile: "normal", reason: { kind: "default" }, next: null },
      updatedAt: null,
    });

    // Every day at 00:00 "normal", at 12:00 "news": whatever the hour now, one of them is in force and the other next.
    const schedule = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"].flatMap((day) => [
      { day, time: "00:00", profile: "normal" },
      { day, time: "12:00", profile: "news" },
    ]);
    const settings = {
      profiles: [profile("normal"), NEWS],
      defaultProfile: "normal",
      schedule,
      holidays: [{ date: "2030-12-25", name: "Christmas", profile: "normal" }],
    };
    const put = await call("PUT", `/api/tradePlatforms/${mt5}/dealing`, settings);
    expect(put.statusCode, put.body).toBe(200);
    const view = put.json<DealingView>();
    expect(view.settings).toEqual(settings);
    const nowHour = Number(new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/London", hour: "2-digit", hourCycle: "h23" }).format(new Date()));
    expect(view.active.profile).toBe(nowHour >= 12 ? "news" : "normal");
    expect(view.active.reason.kind).toBe("schedule");
    expect(view.active.next?.profile).toBe(nowHour >= 12 ? "normal" : "news");

    const active = await call("GET", `/api/tradePlatforms/${mt5}/dealing/active`, undefined, reader);
    expect(active.statusCode, active.body).toBe(200);
    expect(active.json()).toEqual(view.active);

    const [audit, ...more] = await audits();
    expect(more).toHaveLength(0);
    expect(audit).toMatchObject({ action: "dealing.changed", actorSub: ada.sub, before: { profiles: [{ name: "normal" }], schedule: [] }, after: settings });
  });

  it("refuses without Module.dealing, for a reader's write, and another organization's platform (404); nothing changes", async () => {
    const before = (await call("GET", `/api/tradePlatforms/${mt5}/dealing`)).json<DealingView>();
    expect((await call("GET", `/api/tradePlatforms/${mt5}/dealing`, undefined, other)).statusCode).toBe(403);
    expect((await call("PUT", `/api/tradePlatforms/${mt5}/dealing`, before.settings, reader)).statusCode).toBe(403);
    expect(
      (await call("POST", `/api/tradePlatforms/${mt5}/dealing/override`, { profile: "news", until: new Date(Date.now() + 3_600_000).toISOString() }, reader))
        .statusCode,
    ).toBe(403);
    expect((await call("DELETE", `/api/tradePlatforms/${mt5}/dealing/override`, undefined, reader)).statusCode).toBe(403);
    // Eve's token in her own organization, Ada's platform id: not hers, so no such platform.
    expect((await call("GET", `/api/tradePlatforms/${mt5}/dealing`, undefined, eve, eveOrg)).statusCode).toBe(404);
    expect((await call("PUT", `/api/tradePlatforms/${mt5}/dealing`, before.settings, eve, eveOrg)).statusCode).toBe(404);
    expect(
      (
        await call(
          "POST",
          `/api/tradePlatforms/${mt5}/dealing/override`,
          { profile: "news", until: new Date(Date.now() + 3_600_000).toISOString() },
          eve,
          eveOrg,
        )
      ).statusCode,
    ).toBe(404);
    expect((await call("GET", `/api/tradePlatforms/${mt5}/dealing`)).json<DealingView>()).toEqual(before);
  });

  it("answers bad input with a readable 400 that changes nothing", async () => {
    const before = (await call("GET", `/api/tradePlatforms/${mt5}/dealing`)).json<DealingView>();
    const bad = async (url: string, method: "PUT" | "POST", body: unknown, message: string) => {
      const res = await call(method, url, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.body).toContain(message);
    };
    const url = `/api/tradePlatforms/${mt5}/dealing`;
    await bad(url, "PUT", { ...before.settings, defaultProfile: "calm" }, 'Default profile \\"calm\\" is not one of the profiles');
    await bad(url, "PUT", { ...before.settings, profiles: [profile("normal"), profile("normal")] }, 'Two profiles are named \\"normal\\"');
    await bad(url, "PUT", { ...before.settings, schedule: [{ day: "friday", time: "24:00", profile: "news" }] }, "Time must be from 00:00 to 23:59");
    await bad(url, "PUT", { ...before.settings, schedule: [{ day: "someday", time: "10:00", profile: "news" }] }, "Day must be a day of the week");
    await bad(url, "PUT", { ...before.settings, holidays: [{ date: "2026-13-01", profile: "news" }] }, "Holiday date must be a real date");
    await bad(
      url,
      "PUT",
      { ...before.settings, profiles: [profile("normal", { markups: [{ kind: "symbol", target: "EURUSD", bidPoints: 1.5, askPoints: 0 }] }), NEWS] },
      "Bid markup must be a whole number of points",
    );
    await bad(
      url,
      "PUT",
      { ...before.settings, profiles: [profile("normal", { executionDelayMs: 120_000 }), NEWS] },
      "Execution delay can be at most 60,000 ms",
    );
    await bad(
      url,
      "PUT",
      { ...before.settings, profiles: [profile("normal", { maxVolumeLots: -1 }), NEWS] },
      "Maximum volume per order must be more than 0 lots",
    );
    await bad(
      `${url}/override`,
      "POST",
      { profile: "calm", until: new Date(Date.now() + 60_000).toISOString() },
      'Override profile \\"calm\\" is not one of the profiles',
    );
    await bad(`${url}/override`, "POST", { profile: "news", until: "tomorrow" }, "Override end must be a date and time");
    await bad(`${url}/override`, "POST", { profile: "news", until: new Date(Date.now() - 60_000).toISOString() }, "Override end must be in the future");
    await bad(`${url}/override`, "POST", { profile: "news", until: new Date(Date.now() + 40 * 86_400_000).toISOString() }, "An override lasts at most 31 days");
    expect((await call("GET", "/api/tradePlatforms/not-a-uuid/dealing")).statusCode).toBe(400);
    expect((await call("DELETE", `${url}/override`)).statusCode).toBe(404);
    expect((await call("GET", url)).json<DealingView>()).toEqual(before);
  });

  it("an override wins until it ends, audited; ending it gives the schedule back", async () => {
    const view = (await call("GET", `/api/tradePlatforms/${mt5}/dealing`)).json<DealingView>();
    const other = view.active.profile === "news" ? "normal" : "news";
    const until = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, ".000Z");
    const set = await call("POST", `/api/tradePlatforms/${mt5}/dealing/override`, { profile: other, until });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json<DealingView>()).toMatchObject({ override: { profile: other, until }, active: { profile: other, reason: { kind: "override" } } });
    const ended = await call("DELETE", `/api/tradePlatforms/${mt5}/dealing/override`);
    expect(ended.statusCode, ended.body).toBe(200);
    expect(ended.json<DealingView>()).toMatchObject({ override: null, active: { profile: view.active.profile, reason: { kind: "schedule" } } });
    const actions = (await audits()).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(["dealing.override.set", "dealing.override.ended"]));
    expect((await audits()).find((a) => a.action === "dealing.override.set")).toMatchObject({ before: null, after: { profile: other, until } });
  });

  it("the switch: recorded, audited and in the inbox once across two nodes; the simulated server fills with the markup and obeys the limits, after a restart too", async () => {
    // "news" from 00:00 to 01:00 (London) two days from today: "normal" now, "news" next, ticked half an hour into it.
    const days = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
    const todayLondon = new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/London", weekday: "long" }).format(new Date()).toLowerCase();
    const day = days[(days.indexOf(todayLondon) + 2) % 7]!;
    const settings = {
      profiles: [profile("normal"), NEWS],
      defaultProfile: "normal",
      schedule: [
        { day, time: "00:00", profile: "news" },
        { day, time: "01:00", profile: "normal" },
      ],
      holidays: [],
    };
    const put = await call("PUT", `/api/tradePlatforms/${mt5}/dealing`, settings);
    expect(put.statusCode, put.body).toBe(200);
    const view = put.json<DealingView>();
    expect(view.active).toMatchObject({ profile: "normal", next: { profile: "news", reason: { text: `Schedule: ${day} 00:00` } } });
    const switchAt = Date.parse(view.active.next!.at);
    const tickAt = switchAt + 30 * 60_000;

    // This app's own scheduler stops (it would put the profile of the real "now" back every second).
    await dealingSchedulerOf(t.ctx)?.stop();
    // Two nodes' schedulers on one database tick at the same instant.
    const nodeA = new DealingScheduler(dealingSchedulerDepsOf(t.app));
    const nodeB = new DealingScheduler(dealingSchedulerDepsOf(t.app));
    const [a, b] = await Promise.all([nodeA.tick(tickAt), nodeB.tick(tickAt)]);
    expect([...a, ...b]).toEqual([{ platformId: mt5, at: switchAt, profile: "news" }]);
    expect(await nodeA.tick(tickAt)).toEqual([]);
    expect(await t.ctx.database.db.select().from(dealingSwitches).where(eq(dealingSwitches.platformId, mt5))).toMatchObject([
      { at: switchAt, profile: "news", reason: `Schedule: ${day} 00:00` },
    ]);
    const switched = (await audits()).filter((x) => x.action === "dealing.switched");
    expect(switched).toHaveLength(1);
    expect(switched[0]).toMatchObject({
      actorSub: "system:dealing-schedule",
      before: { profile: "normal" },
      after: { profile: "news", at: new Date(switchAt).toISOString() },
    });
    await expect
      .poll(
        async () =>
          (await call("GET", "/api/inbox")).json<{ items: { type: string; title: string }[] }>().items.filter((i) => i.type === "dealingProfileSwitched"),
        { timeout: 10_000 },
      )
      .toEqual([expect.objectContaining({ title: 'Dealing profile "news" in force on Sim MT5' })]);

    // The simulated server obeys "news": BTCUSD's own markup (not its group's), refusals for an oversized order and a stale quote.
    const server = t.app.platforms.simulatedServer(mt5)!;
    expect(dealingProfileOf(server.engine.ctx)?.name).toBe("news");
    const connector = await t.app.platforms.connectorFor(org, mt5);
    const login = (await connector.listAccounts({ limit: 5 })).items.find((x) => x.enabled && !x.readOnly)!.login;
    server.engine.setQuote("BTCUSD", 46_000, 46_020);
    const buy = await connector.placeOrder({ requestId: crypto.randomUUID(), login, symbol: "BTCUSD", side: "buy", volume: 100 });
    expect(buy.price).toBe(46_035); // ask 46,020 + 1,500 points of 0.01
    server.engine.setQuote("BTCUSD", 46_000, 46_020);
    const sell = await connector.placeOrder({ requestId: crypto.randomUUID(), login, symbol: "BTCUSD", side: "sell", volume: 100 });
    expect(sell.price).toBe(45_995); // bid 46,000 − 500 points
    await expect(connector.placeOrder({ requestId: crypto.randomUUID(), login, symbol: "BTCUSD", side: "buy", volume: 20_000 })).rejects.toThrow(
      /more than the 1 lot per order execution profile "news" allows/,
    );
    server.engine.ctx.feed.set("BTCUSD", 46_000, 46_020, Date.now() - 120_000);
    await expect(connector.placeOrder({ requestId: crypto.randomUUID(), login, symbol: "BTCUSD", side: "buy", volume: 100 })).rejects.toThrow(/Off quotes/);

    // The execution delay: the order waits it, then fills.
    server.engine.setDealingProfile({ ...NEWS, executionDelayMs: 400 });
    server.engine.setQuote("BTCUSD", 46_000, 46_020);
    const started = Date.now();
    await connector.placeOrder({ requestId: crypto.randomUUID(), login, symbol: "BTCUSD", side: "buy", volume: 100 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);

    // A restart: the profile is taken off, a new scheduler's first tick (no switch to record) puts it back.
    server.engine.setDealingProfile(null);
    expect(await new DealingScheduler(dealingSchedulerDepsOf(t.app)).tick(tickAt)).toEqual([]);
    expect(dealingProfileOf(server.engine.ctx)?.name).toBe("news");
  });
});
