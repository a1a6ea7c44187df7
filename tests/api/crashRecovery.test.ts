/**
 * Crash recovery (docs/connectors.md#crash-recovery): Toolbox is killed (SIGKILL, no shutdown code runs) while the MT5 Web
 * API protocol server keeps trading, as a real trading server would, and started again on the
 * same database. Afterwards the accounts (logins, balances), the open positions and the deals in
 * the trade history store are the server's exactly — those made while Toolbox was down included,
 * none missing, none twice — the live stream goes on storing new deals, and a Trades Blotter
 * stream resumed with its last event id from before the crash gets every deal since, once.
 *
 * Toolbox runs as a process of its own (tests/helpers/toolboxProcess.ts); the protocol server
 * runs in this process, on a clock the test can pause, so the final comparison is exact. The
 * server's truth is read through the vendor protocol by an MT5 Web API connector of the test's.
 */
// Databases: PGlite and PostgreSQL (a Toolbox process killed mid-write finds its own database as it left it).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import type { BlotterRow } from "../../core/schemas/blotterLive.ts";
import type { BlotterDealPage, BlotterPositionPage } from "../../core/schemas/tradesBlotter.ts";
import type { Deal } from "../../core/trading/deal.ts";
import type { Position } from "../../core/trading/position.ts";
import { loadConfig } from "../../server/config.ts";
import { systemClock, type Clock, type TimerHandle } from "../../server/connectors/clock.ts";
import type { TradePlatformConnector } from "../../server/connectors/connector.ts";
import { createMt5WebApiConnector } from "../../server/connectors/mt5WebApi/connector.ts";
import { DEFAULT_MANAGER, SimulatedServer } from "../../server/connectors/simulated/server.ts";
import { tradeServerTargetPolicy } from "../../server/connectors/target.ts";
import { openDatabase } from "../../server/db/client.ts";
import type { Health } from "../../server/modules/health/routes.ts";
import { selfSignedCertificate, type TestCertificate } from "../../server/protocolServers/certificates.ts";
import { Mt5WebApiServer } from "../../server/protocolServers/mt5WebApi/server.ts";
import { describeDb, testDbKind } from "../helpers/db.ts";
import { createEmptyPostgresDatabase } from "../helpers/postgres.ts";
import { TEST_SECRETS_KEY } from "../helpers/testApp.ts";
import { freePort, killStartedToolboxes, startToolboxProcess, type ToolboxProcess } from "../helpers/toolboxProcess.ts";
import { apiHeaders, newPerson, tokenFactory } from "../helpers/tokens.ts";
import { sseReader, type SseEvent } from "./support/sse.ts";

const ACCOUNTS = 40;
/** Trading actions a second on the server: deals keep coming while Toolbox is up, down and back. */
const TRADE_RATE = 8;
const DAY_MS = 86_400_000;

/** The system clock, whose timers can be held: paused, the server's price feed and traders stop (nothing trades), its answers do not. */
class PausableClock implements Clock {
  private paused = false;
  private held: (() => void)[] = [];
  now = () => systemClock.now();
  setTimeout(callback: () => void, ms: number): TimerHandle {
    return systemClock.setTimeout(() => (this.paused ? this.held.push(callback) : callback()), ms);
  }
  clearTimeout(handle: TimerHandle): void {
    systemClock.clearTimeout(handle);
  }
  pause(): void {
    this.paused = true;
  }
}

/** Polls `check` until it answers something (not undefined/false); fails after `timeoutMs` saying what it waited for. */
async function waitFor<T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const found = await check();
      if (found !== undefined && found !== false) return found;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ""}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const rowsOf = (events: SseEvent[], kinds: string[]) => events.filter((e) => kinds.includes(e.event)).flatMap((e) => (e.data as { rows: BlotterRow[] }).rows);
const dealKeys = (rows: BlotterRow[]) => rows.filter((r) => r.key.startsWith("d:")).map((r) => r.key);

describeDb("Crash recovery: Toolbox killed while the trading server keeps trading", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolbox-crash-"));
  const logFile = path.join(dir, "toolbox.log");
  const clock = new PausableClock();
  let tls: TestCertificate;
  let simulated: SimulatedServer;
  let server: Mt5WebApiServer;
  let truth: TradePlatformConnector;
  let dropDatabase: (() => Promise<void>) | undefined;
  let env: Record<string, string>;
  let port: number;
  let toolbox: ToolboxProcess;
  let token: string;
  let org: string;
  let platformId: string;
  const windowFrom = Date.now() - 29 * DAY_MS;

  const api = async <T>(method: string, url: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${toolbox.url}${url}`, {
      method,
      headers: { ...apiHeaders(token, org), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${text.slice(0, 500)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };

  /** The server's deals (through the vendor protocol) within the window, by deal id. */
  const serverDeals = async (): Promise<Map<string, Deal>> => {
    const to = Date.now() + 60_000;
    const deals = new Map<string, Deal>();
    for (const account of (await truth.listAccounts({ limit: 1000 })).items)
      for (const deal of await truth.dealHistory({ login: account.login, from: windowFrom, to })) if (deal.time >= windowFrom) deals.set(deal.id, deal);
    return deals;
  };
  /** What the trade history store holds within the window, as the blotter's history API answers it (every page). */
  const storedDealIds = async (): Promise<string[]> => {
    const ids: string[] = [];
    const query = `from=${new Date(windowFrom).toISOString()}&to=${new Date(Date.now() + DAY_MS).toISOString()}&limit=1000`;
    for (let cursor: string | null = null; ;) {
      const page: BlotterDealPage = await api("GET", `/api/tradesBlotter/deals?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      ids.push(...page.items.map((d) => d.dealId));
      if (!page.nextCursor) return ids;
      cursor = page.nextCursor;
    }
  };
  const storedPositions = async () => {
    const page: BlotterPositionPage = await api("GET", "/api/tradesBlotter/positions?limit=1000");
    expect(page.nextCursor).toBeNull();
    return page.items
      .map((p) => ({
        id: p.positionId,
        login: p.login,
        symbol: p.symbol,
        side: p.side,
        volume: Math.round(Number(p.volume) * 10_000),
        openPrice: p.openPrice,
        sl: p.sl,
        tp: p.tp,
      }))
      .sort((a, b) => a.id.localeCompare(b.id));
  };
  const serverPositions = async () => {
    const logins = (await truth.listAccounts({ limit: 1000 })).items.map((a) => a.login);
    return (await truth.openPositionsOf(logins))
      .map((p: Position) => ({ id: p.id, login: p.login, symbol: p.symbol, side: p.side, volume: p.volume, openPrice: p.openPrice, sl: p.sl, tp: p.tp }))
      .sort((a, b) => a.id.localeCompare(b.id));
  };
  const storedAccounts = async () => {
    const page = await api<{ items: { login: string; balance: string }[]; total: number }>("GET", `/api/accounts?platformId=${platformId}&limit=100`);
    return page.items.map((a) => ({ login: a.login, balance: Math.round(Number(a.balance) * 100) })).sort((a, b) => a.login.localeCompare(b.login));
  };
  const serverAccounts = async () =>
    (await truth.listAccounts({ limit: 1000 })).items.map((a) => ({ login: a.login, balance: a.balance })).sort((a, b) => a.login.localeCompare(b.login));
  const history = () => api<{ status: string; finishedAt: string | null }>("GET", `/api/tradePlatforms/${platformId}/trade-history`);
  /** The last sequence this Toolbox's event bus handed out (its health answer). */
  const busSeq = async () => {
    const health = (await (await fetch(`${toolbox.url}/api/health`)).json()) as Health;
    return health.dependencies.eventBus.lastSeq;
  };
  const openStream = async (lastEventId?: string) => {
    const res = await fetch(`${toolbox.url}/api/tradesBlotter/stream`, {
      headers: { ...apiHeaders(token, org), ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
    });
    expect(res.status).toBe(200);
    return sseReader(res.body!);
  };

  beforeAll(async () => {
    tls = await selfSignedCertificate();
    simulated = new SimulatedServer({ platform: "MT5", seed: 808, accounts: ACCOUNTS, tradeRate: TRADE_RATE, clock });
    simulated.start();
    server = new Mt5WebApiServer({ simulated, tls });
    const address = await server.listen();
    truth = createMt5WebApiConnector({ url: address.url, ca: tls.ca, targets: tradeServerTargetPolicy("127.0.0.1"), credentials: DEFAULT_MANAGER });
    await truth.connect();

    port = await freePort();
    env = {
      DATA_DIR: path.join(dir, "data"),
      SECRETS_KEY: TEST_SECRETS_KEY,
      TRADE_SERVER_ALLOWED_TARGETS: "127.0.0.1",
      DATABASE_URL: "",
    };
    if (testDbKind() === "postgres") {
      const empty = await createEmptyPostgresDatabase(inject("testDatabaseUrl"), "toolbox_crash");
      dropDatabase = () => empty.drop();
      env.DATABASE_URL = empty.url;
    }
    // The embedded provider's signing keys, made (and kept in the database) before Toolbox starts,
    // so this test can sign access tokens as the provider would (tests/helpers/tokens.ts).
    const config = loadConfig({ ...env, PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: `http://127.0.0.1:${port}` });
    const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    try {
      const dealer = newPerson("Dealer");
      token = await (await tokenFactory({ config, database })).mint(dealer, { claims: { exp: Math.floor(Date.now() / 1000) + 1800 } });
    } finally {
      await database.close();
    }

    toolbox = await startToolboxProcess({ port, env, logFile });
    const preflight = await fetch(`${toolbox.url}/api/profile/preflight`, { headers: apiHeaders(token) });
    expect(preflight.status).toBe(200);
    org = ((await preflight.json()) as { createdOrganizationId: string }).createdOrganizationId;
    const created = await api<{ id: string }>("POST", "/api/tradePlatforms", {
      type: "MT5",
      name: "Broker MT5",
      timeZone: "Europe/Athens",
      connection: {
        kind: "mt5WebApi",
        address: `127.0.0.1:${address.port}`,
        login: DEFAULT_MANAGER.login,
        password: DEFAULT_MANAGER.password,
        caCertificate: tls.ca,
      },
    });
    platformId = created.id;
    await api("PUT", `/api/tradePlatforms/${platformId}/apps`, [{ app: "tradesBlotter", enabled: true }]);
  }, 120_000);

  afterAll(async () => {
    await killStartedToolboxes();
    await truth?.disconnect();
    await server?.close();
    simulated?.stop();
    await dropDatabase?.();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("loses and repeats nothing across a kill -9: accounts, positions, deals, and the live stream", async () => {
    // Up: accounts mirrored, history read, deals coming in live.
    await waitFor(async () => (await storedAccounts()).length === ACCOUNTS, "the accounts in the mirror");
    await waitFor(async () => (await history()).status === "live", "the first backfill");
    const before = await waitFor(async () => {
      const ids = await storedDealIds();
      return ids.length > 0 && ids;
    }, "deals in the store");
    await waitFor(async () => (await storedDealIds()).length > before.length, "a deal stored live");

    // A blotter client: a snapshot, then frames; it keeps the last event id it saw.
    const first = await openStream();
    await first.until(() => first.events.some((e) => e.event === "snapshot"), "the first snapshot");
    await first.until(() => dealKeys(rowsOf(first.events, ["frame"])).length > 0, "a deal in a frame", 30_000);
    const lastId = first.events.filter((e) => e.id !== undefined).at(-1)!.id!;

    // The crash: the trading server does not notice and keeps trading.
    const atKill = new Set((await serverDeals()).keys());
    await toolbox.kill();
    await first.until(() => first.ended(), "the stream to end with the process", 10_000);
    const madeWhileDown = await waitFor(
      async () => {
        const made = [...(await serverDeals()).keys()].filter((id) => !atKill.has(id));
        return made.length >= 5 && made;
      },
      "deals made while Toolbox is down",
      30_000,
    );

    // Back on the same database.
    toolbox = await startToolboxProcess({ port, env, logFile });
    const restartedAt = Date.now();
    await waitFor(async () => {
      const h = await history();
      return h.status === "live" && h.finishedAt !== null && Date.parse(h.finishedAt) >= restartedAt && h;
    }, "the backfill after the restart");
    // The made-while-down deals are back in the store.
    await waitFor(async () => {
      const stored = new Set(await storedDealIds());
      return madeWhileDown.every((id) => stored.has(id));
    }, "the deals made while Toolbox was down in the store");

    // The client comes back with its last id once this Toolbox's bus has gone past it (a browser
    // retrying a while, or a busy node): the id is from the bus before the crash.
    await waitFor(async () => (await busSeq()) > Number(lastId), "this Toolbox's bus to pass the client's last id");
    const second = await openStream(lastId);

    // The live stream goes on: deals made after the restart are stored as they happen. That takes
    // the platform's feed lease, which the killed node held until it lapses (FEED_LEASE_TTL_MS):
    // usually after the stream was resumed. The feed then starts afresh after a gap, and the
    // resumed stream gets a snapshot read right after the pass that gap asks for, with the market
    // trading: what that pass read ahead of the feed is in the snapshot, and comes on the bus after
    // it (docs/decisions/0088-blotter-snapshot-deals-ahead-of-the-bus.md).
    const known = new Set((await serverDeals()).keys());
    const madeAfter = await waitFor(
      async () => {
        const made = [...(await serverDeals()).keys()].filter((id) => !known.has(id));
        return made.length >= 5 && made;
      },
      "deals after the restart",
      30_000,
    );
    await waitFor(
      async () => {
        const stored = new Set(await storedDealIds());
        return madeAfter.every((id) => stored.has(id));
      },
      "the deals made after the restart in the store",
      30_000,
    );

    // The market stops; everything must now be the server's, exactly.
    clock.pause();
    const deals = await serverDeals();
    await waitFor(async () => (await storedDealIds()).length >= deals.size, "the store to catch up", 30_000);
    const stored = await storedDealIds();
    expect(new Set(stored).size, "no deal stored twice").toBe(stored.length);
    expect([...stored].sort()).toEqual([...deals.keys()].sort());
    await waitFor(async () => JSON.stringify(await storedPositions()) === JSON.stringify(await serverPositions()), "the positions", 15_000).catch(
      () => undefined,
    );
    expect(await storedPositions()).toEqual(await serverPositions());
    await waitFor(async () => JSON.stringify(await storedAccounts()) === JSON.stringify(await serverAccounts()), "the balances", 15_000).catch(() => undefined);
    expect(await storedAccounts()).toEqual(await serverAccounts());

    // The resumed blotter stream: every deal since the crash, none twice.
    const sinceKill = [...deals.keys()].filter((id) => !atKill.has(id)).map((id) => `d:${platformId}:${id}`);
    await second
      .until(
        () => {
          const seen = new Set(dealKeys(rowsOf(second.events, ["snapshot", "frame"])));
          return sinceKill.every((key) => seen.has(key));
        },
        "every deal since the crash on the resumed stream",
        15_000,
      )
      .catch((err: Error) => {
        const seen = new Set(dealKeys(rowsOf(second.events, ["snapshot", "frame"])));
        throw new Error(`${err.message.slice(0, 200)}; missing: ${sinceKill.filter((key) => !seen.has(key)).join(", ")}`);
      });
    await second.drainFor(500);
    const ids = second.events.filter((e) => e.id !== undefined).map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const lastSnapshot = second.events.map((e) => e.event).lastIndexOf("snapshot");
    const delivered = dealKeys(rowsOf(second.events.slice(Math.max(0, lastSnapshot)), ["snapshot", "frame"]));
    // Each deal twice with where it came (a snapshot, frames: event index and id), to tell a repeat on the bus from a snapshot ahead of it.
    const twice = [...new Set(delivered.filter((key, i) => delivered.indexOf(key) !== i))].map((key) => {
      const where = second.events.flatMap((e, i) => (rowsOf([e], ["snapshot", "frame"]).some((r) => r.key === key) ? [`${e.event} #${i} id ${e.id}`] : []));
      return `${key}: ${where.join(", ")}`;
    });
    expect(twice, "deals delivered twice on the resumed stream").toEqual([]);
    await second.cancel();
  }, 240_000);
});
