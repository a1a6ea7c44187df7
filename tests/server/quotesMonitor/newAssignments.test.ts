/**
 * Platforms given the Quotes Monitor are the monitor's at once, not at its next periodic read (the
 * browser test's failure of 2026-11-27: a new organization's page kept "No platform uses the
 * Quotes Monitor yet"). The periodic read is set ten minutes away, so only the assignment itself
 * can bring them in: the platforms answer lists them as soon as the assignment is committed (both
 * ways of assigning: a platform's apps, "Assign an application"), their rows tick, and a platform
 * whose quotes arrive has no problem to show (it said "Connecting…" for ever). Then the comparison
 * across servers, live (GET /api/quotesMonitor/comparison/live, over real HTTP): a snapshot with
 * both servers' XAUUSD, frames as their quotes move, and an instrument regrouped by the symbol map
 * said removed while its new name arrives.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { ComparisonLiveFrame } from "../../../core/schemas/quoteComparison.ts";
import type { QuoteFrame, QuotePlatform } from "../../../core/schemas/quotesMonitor.ts";
import { signUp } from "../../api/support/fixtures.ts";
import { sseReader } from "../../api/support/sse.ts";
import { startPlatformsApp, waitFor, type PlatformsApp } from "../../api/platformsHarness.ts";
import { apiHeaders, newPerson, tokenFactory } from "../../helpers/tokens.ts";

let t: PlatformsApp;
let headers: Record<string, string>;
let platformIds: string[] = [];
beforeAll(async () => {
  // XAUUSD must tick on any day this runs: the simulated markets held open on the real clock (decision 0084).
  vi.stubEnv("TOOLBOX_SIMULATED_MARKETS_ALWAYS_OPEN", "1");
  t = await startPlatformsApp({ quotesMonitor: { evaluateEveryMs: 200, refreshEveryMs: 600_000, serverTimeEveryMs: 1_000 } });
});
afterAll(async () => {
  await t?.close();
  await t?.drop();
  vi.unstubAllEnvs();
});

it("shows platforms given the monitor at once and follows their quotes, without waiting for its periodic read", async () => {
  const tokens = await tokenFactory(t.ctx);
  const cora = newPerson("Cora");
  const org = await signUp(t, tokens, cora);
  headers = apiHeaders(await tokens.mint(cora), org);
  const call = async (method: "GET" | "POST" | "PUT", url: string, payload?: unknown) => {
    const res = await t.call({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.json();
  };
  const create = async (name: string, seed: number) =>
    (
      (await call("POST", "/api/tradePlatforms", {
        type: "MT5",
        name,
        timeZone: "UTC",
        connection: { kind: "simulated", accounts: 2, tradeRate: 0, seed },
      })) as { id: string }
    ).id;
  const alpha = await create("Alpha MT5", 1);
  const beta = await create("Beta MT5", 2);
  // Nothing assigned yet, and the monitor has read its sources once (at start).
  expect(await call("GET", "/api/quotesMonitor/platforms")).toEqual([]);

  await call("PUT", `/api/tradePlatforms/${alpha}/apps`, [{ app: "quotesMonitor", enabled: true }]);
  await call("POST", "/api/tradePlatforms/assign-application", { app: "quotesMonitor", platformIds: [beta] });
  const listed = (await call("GET", "/api/quotesMonitor/platforms")) as QuotePlatform[];
  expect(listed.map((p) => p.name)).toEqual(["Alpha MT5", "Beta MT5"]);

  const frame = await waitFor(async () => {
    const f = (await call("GET", "/api/quotesMonitor/rows")) as QuoteFrame;
    const ticking = (id: string) => f.rows.some((r) => r.platformId === id && r.symbol === "XAUUSD" && r.bid !== null);
    return ticking(alpha) && ticking(beta) && f.platforms?.every((p) => p.problem === null) ? f : undefined;
  }, "both platforms' XAUUSD ticking, neither with a problem");
  expect(frame.platforms?.map((p) => [p.name, p.problem])).toEqual([
    ["Alpha MT5", null],
    ["Beta MT5", null],
  ]);
  platformIds = [alpha, beta];
});

it("streams the comparison: a snapshot, the rows that changed, and an instrument no longer compared", async () => {
  expect(platformIds).toHaveLength(2);
  const base = await t.app.listen({ port: 0, host: "127.0.0.1" });
  const res = await fetch(`${base}/api/quotesMonitor/comparison/live`, { headers: { ...headers, Accept: "text/event-stream" } });
  expect(res.status).toBe(200);
  const sse = sseReader(res.body!);
  try {
    const frames = () => sse.events.map((e) => ({ event: e.event, frame: e.data as ComparisonLiveFrame }));
    const snapshot = await sse.until(() => frames()[0], "the snapshot");
    expect(snapshot.event).toBe("snapshot");
    const gold = snapshot.frame.rows.find((r) => r.instrument === "XAUUSD");
    expect(gold?.quotes.map((q) => q.platformId).sort()).toEqual([...platformIds].sort());
    // Quotes move: later frames bring XAUUSD again (only rows that changed), nothing removed.
    await sse.until(() => frames().some((f) => f.event === "frame" && f.frame.rows.some((r) => r.instrument === "XAUUSD")), "XAUUSD in a frame");
    expect(frames().every((f) => f.frame.removed.length === 0)).toBe(true);

    // Both servers' XAUUSD paired as GOLD: XAUUSD is said removed, GOLD arrives.
    const pairs = platformIds.map((platformId) => ({ platformId, symbol: "XAUUSD", instrument: "GOLD" }));
    const put = await t.call({ method: "PUT", url: "/api/quotesMonitor/symbol-map", headers, payload: { pairs } });
    expect(put.statusCode, put.body).toBe(200);
    const regrouped = await sse.until(() => frames().find((f) => f.frame.removed.includes("XAUUSD")), "XAUUSD removed");
    expect(regrouped.frame.rows.map((r) => r.instrument)).toContain("GOLD");
  } finally {
    await sse.cancel();
  }
});
