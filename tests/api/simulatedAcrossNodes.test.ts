/**
 * A simulated platform is one server for every node (decision 0069), on PostgreSQL and NATS.
 * Node 1 is Toolbox in a process of its own (so it can be killed as a crash kills: SIGKILL) and
 * runs the simulated server; node 2 runs in this process. An order placed through node 2 lands in
 * node 1's simulation: node 1's API shows it, its trade feed puts it on the stream, its history
 * store keeps its deal. Node 1 is killed; node 2 takes the simulation over from the database with
 * the same accounts and open positions, not a new simulation from the seed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Position } from "../../core/trading/position.ts";
import { loadConfig } from "../../server/config.ts";
import type { TradePlatformConnector } from "../../server/connectors/connector.ts";
import { openDatabase, type Database } from "../../server/db/client.ts";
import type { BusMessage } from "../../server/events/types.ts";
import { testDbKind } from "../helpers/db.ts";
import { natsTestStream, NATS_TEST_URL, type TestStream } from "../helpers/natsBus.ts";
import { createEmptyPostgresDatabase } from "../helpers/postgres.ts";
import { freePort, killStartedToolboxes, startToolboxProcess, type ToolboxProcess } from "../helpers/toolboxProcess.ts";
import { apiHeaders, newPerson, tokenFactory } from "../helpers/tokens.ts";
import { startPlatformsApp, TEST_SECRETS_KEY, waitFor, type PlatformsApp } from "./platformsHarness.ts";

const TTL_MS = 3_000;

const book = (positions: Position[]) =>
  positions
    .map(({ id, login, symbol, side, volume, openPrice, openTime, sl, tp }) => ({ id, login, symbol, side, volume, openPrice, openTime, sl, tp }))
    .sort((a, b) => a.id.localeCompare(b.id));

// Several nodes share a PostgreSQL server; PGlite is one process's.
describe.skipIf(testDbKind() !== "postgres")("a simulated platform across two nodes [postgres, NATS]", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolbox-simnodes-"));
  let stream: TestStream;
  let dropDatabase: (() => Promise<void>) | undefined;
  let database: Database;
  let node1: ToolboxProcess;
  let node2: PlatformsApp;
  let token: string;
  let org: string;

  const api = async <T>(method: string, url: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${node1.url}${url}`, {
      method,
      headers: { ...apiHeaders(token, org), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${text.slice(0, 500)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };

  beforeAll(async () => {
    stream = await natsTestStream();
    const empty = await createEmptyPostgresDatabase(inject("testDatabaseUrl"), "toolbox_simnodes");
    dropDatabase = () => empty.drop();
    const port = await freePort();
    const env = {
      DATA_DIR: path.join(dir, "data"),
      SECRETS_KEY: TEST_SECRETS_KEY,
      DATABASE_URL: empty.url,
      NATS_URL: NATS_TEST_URL,
      NATS_STREAM: stream.stream,
      NATS_SUBJECT_PREFIX: stream.subjectPrefix,
      NODE_ID: "node-1",
      FEED_LEASE_TTL_MS: String(TTL_MS),
    };
    // Migrated here first, with the provider's signing keys, so this test can sign access tokens.
    const config = loadConfig({ ...env, PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: `http://127.0.0.1:${port}` });
    database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    token = await (await tokenFactory({ config, database })).mint(newPerson("Dealer"), { claims: { exp: Math.floor(Date.now() / 1000) + 1800 } });
    node1 = await startToolboxProcess({ port, env, logFile: path.join(dir, "node1.log") });
    const preflight = await fetch(`${node1.url}/api/profile/preflight`, { headers: apiHeaders(token) });
    expect(preflight.status).toBe(200);
    org = ((await preflight.json()) as { createdOrganizationId: string }).createdOrganizationId;
  }, 120_000);

  afterAll(async () => {
    await killStartedToolboxes();
    await node2?.close();
    await stream?.drop();
    await database?.close();
    await dropDatabase?.();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("runs one simulation for both nodes, and node 2 takes it over with the same positions when node 1 is killed", async () => {
    const { id: platformId } = await api<{ id: string }>("POST", "/api/tradePlatforms", {
      type: "MT5",
      name: "Shared simulation",
      timeZone: "UTC",
      connection: { kind: "simulated", accounts: 10, tradeRate: 0 },
    });
    await api("PUT", `/api/tradePlatforms/${platformId}/apps`, [{ app: "tradesBlotter", enabled: true }]);
    // Node 1 connected it, so node 1 runs the server; node 2 reaches it over the bus.
    await waitFor(
      async () => (await api<{ items: unknown[] }>("GET", `/api/accounts?platformId=${platformId}&limit=5`)).items.length > 0,
      "node 1's accounts",
      30_000,
    );
    // Node 2 starts once node 1 runs the server: started earlier, it could take the host lease first
    // (whichever node connects first hosts, decision 0069), and this test is about node 1's.
    node2 = await startPlatformsApp({
      database: { ...database, drop: () => Promise.resolve() },
      bus: await stream.bus(),
      env: { NODE_ID: "node-2", FEED_LEASE_TTL_MS: String(TTL_MS) },
    });
    const connector = (): Promise<TradePlatformConnector> => node2.app.platforms.connectorFor(org, platformId);
    await waitFor(async () => node2.app.platforms.state(platformId).state === "connected", "node 2 connected", 30_000);
    expect(node2.app.platforms.simulatedServer(platformId)).toBeUndefined();

    // Node 2's live quotes come from node 1's server, over the node link.
    const quotes = (await connector()).quotes({ symbols: ["EURUSD", "BTCUSD"] });
    const firstBatch = await quotes[Symbol.asyncIterator]().next();
    expect(firstBatch.done).toBe(false);
    expect(firstBatch.value!.every((q: { symbol: string }) => ["EURUSD", "BTCUSD"].includes(q.symbol))).toBe(true);
    quotes.close();

    const trades: BusMessage[] = [];
    (await stream.bus()).subscribe({ types: ["trade"], platformIds: [platformId] }, (m) => trades.push(m));

    // Through node 2: a new account, a deposit, two orders.
    const group = (await (await connector()).listGroups())[0]!.name;
    const account = await (await connector()).createAccount({ group, name: "Across nodes", password: "Secret123" });
    const login = account.login;
    await (await connector()).balanceOperation({ operationId: "nodes-deposit-1", login, type: "deposit", amount: 5_000_000, comment: "in" });
    const first = await (await connector()).placeOrder({ requestId: "nodes-order-1", login, symbol: "EURUSD", side: "buy", volume: 200, reason: "dealer" });
    const second = await (await connector()).placeOrder({ requestId: "nodes-order-2", login, symbol: "USDJPY", side: "sell", volume: 100, reason: "dealer" });

    // On node 1: its accounts, its stream (its trade feed holds the lease), its history.
    const onNode1 = await api<{ id: string }[]>("GET", `/api/accounts/${platformId}/${login}/positions`);
    expect(onNode1.map((p) => p.id).sort()).toEqual([first.positionId, second.positionId].sort());
    await waitFor(
      async () => trades.some((m) => m.event.type === "trade" && m.event.event.type === "positionOpened" && m.event.event.position.id === first.positionId),
      "the order on the stream",
      20_000,
    );
    await waitFor(
      async () => {
        const page = await api<{ items: { positionId: string | null; login: string }[] }>(
          "GET",
          `/api/tradesBlotter/deals?from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 3_600_000).toISOString()}&limit=1000`,
        );
        return page.items.some((d) => d.login === login && d.positionId === first.positionId);
      },
      "the order's deal in node 1's history",
      20_000,
    );

    const before = { account: await (await connector()).getAccount(login), positions: book(await (await connector()).openPositions(login)) };
    const loginsBefore = (await (await connector()).listAccounts({ limit: 1000 })).items.map((a) => a.login);

    // Node 1 dies. Node 2 takes the simulation over from the database: a gap, then the same books.
    await node1.kill();
    await waitFor(async () => node2.app.platforms.simulatedServer(platformId) !== undefined, "node 2 running the simulation", 45_000);
    await waitFor(async () => node2.app.platforms.state(platformId).state === "connected", "node 2 connected to it", 30_000);
    const after = await connector();
    expect(book(await after.openPositions(login))).toEqual(before.positions);
    expect((await after.getAccount(login)).balance).toBe(before.account.balance);
    expect((await after.listAccounts({ limit: 1000 })).items.map((a) => a.login)).toEqual(loginsBefore);
    // The orders made before the crash are remembered: their retries are answered, not placed again.
    expect(await after.placeOrder({ requestId: "nodes-order-1", login, symbol: "EURUSD", side: "buy", volume: 200, reason: "dealer" })).toEqual(first);
    expect(book(await after.openPositions(login))).toEqual(before.positions);
  }, 180_000);
});
