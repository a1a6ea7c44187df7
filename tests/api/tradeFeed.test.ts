/**
 * The trade feed through the real app: trades made on a simulated platform arrive on the bus as
 * that organization's and platform's events, in the connector's order with nothing lost or
 * repeated (also across a dropped link), and a platform disabled or deleted stops publishing.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { BusMessage, TradeBusEvent } from "../../server/events/types.ts";
import { describeDb } from "../helpers/db.ts";
import { apiHeaders, newPerson, tokenFactory } from "../helpers/tokens.ts";
import { signUp } from "./support/fixtures.ts";
import { startPlatformsApp, waitFor, type PlatformsApp } from "./platformsHarness.ts";

describeDb("trade feed (connectors → event bus)", () => {
  let t: PlatformsApp;
  let adaOrg: string;
  let eveOrg: string;
  let adaHeaders: Record<string, string>;
  let eveHeaders: Record<string, string>;

  beforeAll(async () => {
    t = await startPlatformsApp();
    const tokens = await tokenFactory(t.ctx);
    const ada = newPerson("Ada");
    const eve = newPerson("Eve");
    adaOrg = await signUp(t, tokens, ada);
    eveOrg = await signUp(t, tokens, eve);
    adaHeaders = apiHeaders(await tokens.mint(ada), adaOrg);
    eveHeaders = apiHeaders(await tokens.mint(eve), eveOrg);
  });
  afterAll(async () => {
    await t?.close();
    await t?.drop();
  });

  async function create(headers: Record<string, string>, name: string, type = "MT5"): Promise<string> {
    const res = await t.call({
      method: "POST",
      url: "/api/tradePlatforms",
      headers,
      payload: { type, name, timeZone: "UTC", connection: { kind: "simulated", accounts: 20, tradeRate: 0 } },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { id } = res.json<{ id: string }>();
    await waitFor(async () => t.app.tradeFeed.status(id)?.phase === "live", `${name}'s feed live`);
    return id;
  }

  /** Makes the platform's simulated traders act until its connector has numbered at least `events` more events. */
  async function trade(organizationId: string, platformId: string, events: number): Promise<number> {
    const server = t.app.platforms.simulatedServer(platformId)!;
    const probe = (await t.app.platforms.connectorFor(organizationId, platformId)).subscribe();
    const target = probe.lastSequence + events;
    probe.close();
    for (;;) {
      server.traders.step(5);
      const now = (await t.app.platforms.connectorFor(organizationId, platformId)).subscribe();
      const last = now.lastSequence;
      now.close();
      if (last >= target) return last;
    }
  }

  it("publishes each platform's trade events for its organization and platform only, in order", async () => {
    const adaMt5 = await create(adaHeaders, "Ada MT5");
    const adaMt4 = await create(adaHeaders, "Ada MT4", "MT4");
    const evePlatform = await create(eveHeaders, "Eve MT5");

    const adaSeen: BusMessage<TradeBusEvent>[] = [];
    const eveSeen: BusMessage<TradeBusEvent>[] = [];
    const adaMt5Only: BusMessage<TradeBusEvent>[] = [];
    const subs = [
      t.app.bus.subscribe({ types: ["trade"], organizationId: adaOrg }, (m) => adaSeen.push(m)),
      t.app.bus.subscribe({ types: ["trade"], organizationId: eveOrg }, (m) => eveSeen.push(m)),
      t.app.bus.subscribe({ types: ["trade"], organizationId: adaOrg, platformIds: [adaMt5] }, (m) => adaMt5Only.push(m)),
    ];
    try {
      const startMt5 = t.app.tradeFeed.status(adaMt5)!.lastSequence;
      const lastMt5 = await trade(adaOrg, adaMt5, 40);
      const lastMt4 = await trade(adaOrg, adaMt4, 10);
      const ofMt5 = () => adaSeen.filter((m) => m.event.platformId === adaMt5);
      await waitFor(async () => ofMt5().at(-1)?.event.event.sequence === lastMt5, "Ada's MT5 trades on the bus");
      await waitFor(async () => adaSeen.some((m) => m.event.platformId === adaMt4 && m.event.event.sequence === lastMt4), "Ada's MT4 trades on the bus");

      // Every event of the connector once, in its order, with the bus's sequence growing.
      expect(ofMt5().map((m) => m.event.event.sequence)).toEqual(Array.from({ length: lastMt5 - startMt5 }, (_, i) => startMt5 + 1 + i));
      expect(adaSeen.every((m, i) => i === 0 || m.seq > adaSeen[i - 1]!.seq)).toBe(true);
      expect(adaSeen.every((m) => m.event.type === "trade" && m.event.organizationId === adaOrg)).toBe(true);
      expect(adaMt5Only.map((m) => m.seq)).toEqual(ofMt5().map((m) => m.seq));
      // Real trade events of the simulated traders, as the connector normalized them.
      expect(new Set(ofMt5().map((m) => m.event.event.type))).toContain("positionOpened");
      // Eve's organization saw nothing of Ada's, and Ada's platform filter nothing of Ada's MT4.
      expect(eveSeen).toEqual([]);

      await trade(eveOrg, evePlatform, 5);
      await waitFor(async () => eveSeen.length >= 5, "Eve's trades on the bus");
      expect(eveSeen.every((m) => m.event.organizationId === eveOrg && m.event.platformId === evePlatform)).toBe(true);
      expect(adaSeen.some((m) => m.event.platformId === evePlatform)).toBe(false);
    } finally {
      for (const sub of subs) sub.close();
    }
  });

  it("loses and repeats nothing across a dropped link, and starts with a trade gap", async () => {
    const gaps: string[] = [];
    const gapSub = t.app.bus.subscribe({ types: ["tradeGap"], organizationId: adaOrg }, (m) => gaps.push(m.event.platformId));
    const id = await create(adaHeaders, "Ada dropped link");
    await waitFor(async () => gaps.includes(id), "the start's trade gap");
    gapSub.close();

    const seen: number[] = [];
    const sub = t.app.bus.subscribe({ types: ["trade"], organizationId: adaOrg, platformIds: [id] }, (m) => seen.push(m.event.event.sequence));
    try {
      const start = t.app.tradeFeed.status(id)!.lastSequence;
      await trade(adaOrg, id, 10);
      const server = t.app.platforms.simulatedServer(id)!;
      server.faults.disconnect({ refuseReconnect: true });
      await waitFor(async () => t.app.platforms.state(id).state !== "connected", "link down");
      // Trades happen on the platform while Toolbox cannot see it.
      for (let i = 0; i < 6; i++) server.traders.step(5);
      server.faults.restore();
      await waitFor(async () => t.app.platforms.state(id).state === "connected", "link back");
      const last = await trade(adaOrg, id, 10);
      await waitFor(async () => seen.at(-1) === last, "every trade on the bus");
      expect(seen).toEqual(Array.from({ length: last - start }, (_, i) => start + 1 + i));
    } finally {
      sub.close();
    }
  });

  it("stops publishing a platform that is disabled or deleted", async () => {
    const id = await create(adaHeaders, "Ada stopping");
    const seen: BusMessage<TradeBusEvent>[] = [];
    const sub = t.app.bus.subscribe({ types: ["trade"], platformIds: [id] }, (m) => seen.push(m));
    try {
      await trade(adaOrg, id, 3);
      await waitFor(async () => seen.length >= 3, "trades on the bus");

      const disabled = await t.call({ method: "PATCH", url: `/api/tradePlatforms/${id}`, headers: adaHeaders, payload: { enable: false } });
      expect(disabled.statusCode, disabled.body).toBe(200);
      await waitFor(async () => t.app.tradeFeed.status(id)?.phase === "waiting", "feed waiting");
      const before = seen.length;
      // The disabled platform's simulated server keeps trading; none of it reaches the bus.
      const server = t.app.platforms.simulatedServer(id)!;
      for (let i = 0; i < 10; i++) server.traders.step(5);
      await new Promise((r) => setTimeout(r, 100));
      expect(seen.length).toBe(before);

      const deleted = await t.call({ method: "DELETE", url: `/api/tradePlatforms/${id}`, headers: adaHeaders, payload: { confirmName: "Ada stopping" } });
      expect(deleted.statusCode, deleted.body).toBe(204);
      await waitFor(async () => t.app.tradeFeed.status(id) === undefined, "feed gone");
      expect(seen.length).toBe(before);
    } finally {
      sub.close();
    }
  });
});
