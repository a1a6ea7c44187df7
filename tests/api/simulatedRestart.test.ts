/**
 * A simulated platform keeps its state across restarts (decision 0069): an account created in it,
 * its deposit and its trades are there after a clean restart (from the snapshot written as it
 * stops) and after a stop without one (the commands written since the last snapshot, replayed),
 * exactly, and not from the seed. A real crash (SIGKILL) is in simulatedAcrossNodes.test.ts.
 */
// Databases: PGlite and PostgreSQL (a simulated server's command log and snapshot bytes).
import { afterEach, expect, it } from "vitest";
import type { TradePlatformConnector } from "../../server/connectors/connector.ts";
import { describeDb, openTestDatabase } from "../helpers/db.ts";
import { apiHeaders, newPerson, tokenFactory } from "../helpers/tokens.ts";
import { signUp } from "./support/fixtures.ts";
import { startPlatformsApp, waitFor, type PlatformsApp, type TestDatabase } from "./platformsHarness.ts";

/** What a restart must keep exactly: everything but what moves with prices (profit, equity, margin). */
async function books(connector: TradePlatformConnector) {
  const accounts = [];
  for (let cursor: string | undefined, page; (page = await connector.listAccounts({ limit: 1000, cursor })); cursor = page.nextCursor) {
    accounts.push(
      ...page.items.map(({ login, group, name, balance, credit, leverage, enabled }) => ({ login, group, name, balance, credit, leverage, enabled })),
    );
    if (!page.nextCursor) break;
  }
  const positions = (await connector.openPositions()).map(({ id, login, symbol, side, volume, openPrice, openTime, sl, tp, comment }) => ({
    id,
    login,
    symbol,
    side,
    volume,
    openPrice,
    openTime,
    sl,
    tp,
    comment,
  }));
  const deals = [];
  for (const { login } of accounts) deals.push(...(await connector.dealHistory({ login, from: 0, to: Date.UTC(2100, 0, 1) })));
  return { accounts, positions, deals, groups: await connector.listGroups(), symbols: await connector.listSymbols() };
}

describeDb("a simulated platform keeps its state", () => {
  let database: TestDatabase;
  const nodes: PlatformsApp[] = [];

  afterEach(async () => {
    for (const node of nodes.splice(0).reverse()) await node.close().catch(() => {});
    await database?.drop();
  });

  async function start(): Promise<PlatformsApp> {
    const node = await startPlatformsApp({ database, env: { NODE_ID: "restarting-node", FEED_LEASE_TTL_MS: "60000" } });
    nodes.push(node);
    return node;
  }

  it("keeps an account, its deposit and its trades across a clean restart and a crash", async () => {
    database = await openTestDatabase();
    let node = await start();
    const tokens = await tokenFactory(node.ctx);
    const ada = newPerson("Ada");
    const org = await signUp(node, tokens, ada);
    const headers = async () => apiHeaders(await tokens.mint(ada), org);
    const created = await node.call({
      method: "POST",
      url: "/api/tradePlatforms",
      headers: await headers(),
      payload: { type: "MT5", name: "Kept", timeZone: "UTC", connection: { kind: "simulated", accounts: 12, tradeRate: 0 } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const platformId = created.json<{ id: string }>().id;
    const connector = () => node.app.platforms.connectorFor(org, platformId);
    const group = (await (await connector()).listGroups())[0]!.name;

    const account = await node.call({
      method: "POST",
      url: "/api/accounts",
      headers: await headers(),
      payload: { platformId, group, name: "Kept Account", password: "Secret123" },
    });
    expect(account.statusCode, account.body).toBe(201);
    const login = account.json<{ login: string }>().login;
    const deposit = await node.call({
      method: "POST",
      url: `/api/accounts/${platformId}/${login}/balance-operations`,
      headers: { ...(await headers()), "idempotency-key": "kept-deposit-1" },
      payload: { type: "deposit", amount: "25000.00" },
    });
    expect(deposit.statusCode, deposit.body).toBe(201);
    const order = await (await connector()).placeOrder({ requestId: "kept-order-1", login, symbol: "EURUSD", side: "buy", volume: 200, reason: "dealer" });
    await (await connector()).modifyPosition({ requestId: "kept-modify-1", positionId: order.positionId, sl: 0.5, tp: null });
    const before = await books(await connector());
    expect(before.accounts.find((a) => a.login === login)?.balance).toBe(2_500_000);
    expect(before.positions.map((p) => p.id)).toContain(order.positionId);

    // A clean restart: the server is saved as it stops, the new app restores it.
    await node.close();
    nodes.splice(0);
    node = await start();
    await waitFor(async () => node.app.platforms.state(platformId).state === "connected", "the platform connected again");
    expect(await books(await connector())).toEqual(before);

    // More trading, then a stop without the snapshot (as after a crash): the new app replays the commands written since the last one.
    const closed = await (await connector()).closePosition({ requestId: "kept-close-1", positionId: order.positionId, volume: 100 });
    const second = await (await connector()).placeOrder({ requestId: "kept-order-2", login, symbol: "GBPUSD", side: "sell", volume: 200, reason: "dealer" });
    const beforeCrash = await books(await connector());
    node.app.platforms.simulatedServer(platformId)!.saveNow = () => Promise.resolve();
    await node.close();
    nodes.splice(0);
    node = await start();
    await waitFor(async () => node.app.platforms.state(platformId).state === "connected", "the platform connected again");
    expect(await books(await connector())).toEqual(beforeCrash);
    // The retries of what was done before the crash are answered, not done again.
    expect(await (await connector()).closePosition({ requestId: "kept-close-1", positionId: order.positionId, volume: 100 })).toEqual(closed);
    expect(await (await connector()).placeOrder({ requestId: "kept-order-2", login, symbol: "GBPUSD", side: "sell", volume: 200, reason: "dealer" })).toEqual(
      second,
    );
    expect(await books(await connector())).toEqual(beforeCrash);
  }, 60_000);
});
