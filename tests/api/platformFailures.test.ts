/**
 * A failure inside one platform's background work (here: its simulated server's timer throws, as
 * a bug would) never reaches the event loop: that platform is logged, shown as failed with a
 * reason, and restarted after a backoff; the other platforms keep trading and the API answers.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { PlatformStateBusEvent } from "../../server/events/types.ts";
import { describeDb } from "../helpers/db.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { FAST_RUNTIME, startPlatformsApp, waitFor, type PlatformsApp } from "./platformsHarness.ts";
import { signUp } from "./support/fixtures.ts";

describeDb("a platform that fails inside its own timers", () => {
  let t: PlatformsApp;
  let tokens: TokenFactory;
  const escaped: unknown[] = [];
  const onEscape = (error: unknown) => escaped.push(error);

  beforeAll(async () => {
    process.on("uncaughtException", onEscape);
    process.on("unhandledRejection", onEscape);
    // A restart delay long enough to see the failed state, short enough for a test.
    t = await startPlatformsApp({
      runtime: { ...FAST_RUNTIME, manager: { ...FAST_RUNTIME.manager, backoff: { initialMs: 1_500, maxMs: 3_000, multiplier: 2, jitter: 0 } } },
    });
    tokens = await tokenFactory(t.ctx);
  });
  afterAll(async () => {
    process.off("uncaughtException", onEscape);
    process.off("unhandledRejection", onEscape);
    await t?.close();
    await t?.drop();
  });

  it("is stopped, shown as failed and restarted after a backoff, while the other platforms and the API carry on", async () => {
    const ada = newPerson("Ada");
    const bob = newPerson("Bob");
    const adaOrg = await signUp(t, tokens, ada);
    const bobOrg = await signUp(t, tokens, bob);
    const adaHeaders = apiHeaders(await tokens.mint(ada), adaOrg);
    const bobHeaders = apiHeaders(await tokens.mint(bob), bobOrg);
    const create = async (headers: Record<string, string>, name: string) => {
      const res = await t.call({
        method: "POST",
        url: "/api/tradePlatforms",
        headers,
        payload: { type: "MT5", name, timeZone: "UTC", connection: { kind: "simulated", accounts: 20, tradeRate: 50, seed: 3 } },
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as string;
    };
    const failing = await create(adaHeaders, "Failing MT5");
    const sibling = await create(adaHeaders, "Sibling MT5");
    const neighbour = await create(bobHeaders, "Neighbour MT5");
    const detail = async (id: string, headers: Record<string, string>) =>
      (await t.call({ url: `/api/tradePlatforms/${id}`, headers })).json<{ state: string; lastError: string | null }>();
    for (const [id, headers] of [
      [failing, adaHeaders],
      [sibling, adaHeaders],
      [neighbour, bobHeaders],
    ] as const)
      await waitFor(async () => (await detail(id, headers)).state === "connected", `${id} connected`);

    const events: PlatformStateBusEvent[] = [];
    const states = t.app.bus.subscribe({ types: ["platformState"] }, ({ event }) => events.push(event));
    const broken = t.app.platforms.simulatedServer(failing)!;
    const others = [t.app.platforms.simulatedServer(sibling)!, t.app.platforms.simulatedServer(neighbour)!];
    const tradedBefore = others.map((s) => s.traders.attempted);

    broken.faults.failNextTimer("Simulated internal failure of the trading server");

    // Down, with a reason a dealer can read (the same event feeds the live page).
    const down = await waitFor(async () => {
      const d = await detail(failing, adaHeaders);
      return d.state === "failed" ? d : undefined;
    }, "the failing platform marked failed");
    expect(down.lastError).toMatch(
      /^Toolbox stopped this platform after an unexpected error and restarts it in (2 s|a moment)\. The server log has the details\.$/,
    );
    expect(events.some((e) => e.platformId === failing && e.state === "failed" && e.lastError === down.lastError)).toBe(true);
    // Logged with the platform it belongs to and the error itself.
    const logged = t.logs.map((l) => JSON.parse(l)).find((l) => l.msg?.startsWith("trade platform failed"));
    expect(logged).toMatchObject({ level: 50, platformId: failing, err: { message: "Simulated internal failure of the trading server" } });
    // Its simulated server is stopped; asking for the platform says why it cannot be used.
    const attemptedAtFailure = broken.traders.attempted;
    const refused = await t.call({ url: `/api/accounts?platformId=${failing}`, headers: adaHeaders });
    expect(refused.statusCode).toBe(200); // the mirrored list still answers
    await expect(t.app.platforms.connectorFor(adaOrg, failing)).rejects.toThrow(/unexpected error/);

    // Meanwhile the others trade on and the API answers.
    await new Promise((r) => setTimeout(r, 400));
    others.forEach((s, i) => expect(s.traders.attempted).toBeGreaterThan(tradedBefore[i]!));
    expect((await detail(sibling, adaHeaders)).state).toBe("connected");
    expect((await detail(neighbour, bobHeaders)).state).toBe("connected");
    expect((await t.call({ url: "/api/tradePlatforms", headers: apiHeaders(await tokens.mint(ada)) })).statusCode).toBe(200);
    expect(broken.traders.attempted).toBe(attemptedAtFailure);

    // Back after the backoff, on a new simulated server.
    await waitFor(async () => (await detail(failing, adaHeaders)).state === "connected", "the failing platform back", 10_000);
    const restarted = t.app.platforms.simulatedServer(failing)!;
    expect(restarted).not.toBe(broken);
    const connector = await t.app.platforms.connectorFor(adaOrg, failing);
    expect((await connector.listAccounts({ limit: 5 })).items).toHaveLength(5);
    expect(events.filter((e) => e.platformId === failing).at(-1)).toMatchObject({ state: "connected", lastError: null });
    states.close();
    expect(escaped).toEqual([]);
  });

  it("a platform that fails again soon waits longer before its next restart", async () => {
    const cy = newPerson("Cy");
    const org = await signUp(t, tokens, cy);
    const headers = apiHeaders(await tokens.mint(cy), org);
    const res = await t.call({
      method: "POST",
      url: "/api/tradePlatforms",
      headers,
      payload: { type: "MT4", name: "Flaky MT4", timeZone: "UTC", connection: { kind: "simulated", accounts: 5, tradeRate: 20, seed: 4 } },
    });
    const id = res.json().id as string;
    const state = async () => (await t.call({ url: `/api/tradePlatforms/${id}`, headers })).json<{ state: string; lastError: string | null }>();
    await waitFor(async () => (await state()).state === "connected", "connected");
    t.app.platforms.simulatedServer(id)!.faults.failNextTimer();
    expect((await waitFor(async () => ((await state()).state === "failed" ? state() : undefined), "failed")).lastError).toMatch(/restarts it in 2 s/);
    await waitFor(async () => (await state()).state === "connected", "back once", 10_000);
    t.app.platforms.simulatedServer(id)!.faults.failNextTimer();
    expect((await waitFor(async () => ((await state()).state === "failed" ? state() : undefined), "failed again")).lastError).toMatch(/restarts it in 3 s/);
    expect(escaped).toEqual([]);
  });
});
