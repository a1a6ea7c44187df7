/**
 * The accounts mirror against simulated servers (no HTTP), on PGlite and PostgreSQL: initial
 * sync, live updates, a dropped link, a stream that ends and resumes, missed events (full
 * resync), removal, and what a resync writes (only what changed).
 */
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { moneyToDecimal, type TradePlatformType } from "../../../core/trading/index.ts";
import { AccountMirror } from "../../../server/modules/accounts/mirror/mirror.ts";
import { nextGeneration, removeAccountsNotListed } from "../../../server/modules/accounts/mirror/writeRepository.ts";
import { rowsOf } from "../../../server/db/rows.ts";
import type { TradePlatformConnector } from "../../../server/connectors/connector.ts";
import { createConnector } from "../../../server/connectors/factory.ts";
import { createSimulatedConnector } from "../../../server/connectors/simulated/connector.ts";
import { SimulatedServerRegistry } from "../../../server/connectors/simulated/registry.ts";
import { SimulatedServer } from "../../../server/connectors/simulated/server.ts";
import { organizations, tradePlatforms, tradingAccounts } from "../../../server/db/schema.ts";
import { describeEachDb, openDatabaseOf, type TestDatabase } from "../../helpers/eachDb.ts";

describeEachDb("accounts mirror", (kind) => {
  let database: TestDatabase;
  let organizationId: string;
  const registry = new SimulatedServerRegistry();
  const cleanups: (() => Promise<void> | void)[] = [];

  beforeAll(async () => {
    database = await openDatabaseOf(kind);
    const [org] = await database.db.insert(organizations).values({ name: "Mirror Brokers" }).returning();
    organizationId = org!.id;
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => {
    registry.stopAll();
    await database?.drop();
  });

  async function platform(type: TradePlatformType = "MT5") {
    const id = randomUUID();
    await database.db.insert(tradePlatforms).values({ id, organizationId, type, name: `${type} ${id.slice(0, 8)}` });
    return { id, organizationId, type };
  }

  async function simulated(accounts: number, type: TradePlatformType = "MT5") {
    const p = await platform(type);
    const connector = createConnector(
      { kind: "simulated", platform: type, serverKey: p.id, server: { accounts, tradeRate: 0, seed: 7 } },
      { simulatedServers: registry },
    );
    await connector.connect();
    const server = registry.get(p.id)!;
    cleanups.push(async () => {
      await connector.disconnect();
      registry.remove(p.id);
    });
    return { platform: p, connector, server };
  }

  /** A server whose prices stand still (no feed, no traders): between syncs nothing changes unless a test changes it. */
  async function frozen(accounts: number, type: TradePlatformType = "MT5") {
    const p = await platform(type);
    const server = new SimulatedServer({ platform: type, accounts, tradeRate: 0, seed: 5, feedIntervalMs: 3_600_000 });
    server.start();
    const connector = createSimulatedConnector(server);
    cleanups.push(async () => {
      await connector.disconnect();
      server.stop();
    });
    await connector.connect();
    return { platform: p, connector, server };
  }

  function newMirror(options: Partial<ConstructorParameters<typeof AccountMirror>[0]> = {}) {
    const mirror = new AccountMirror({ db: database.db, figuresRefreshMs: 0, fullRefreshMs: 0, retryDelayMs: 20, ...options });
    cleanups.push(() => mirror.stopAll());
    return mirror;
  }

  async function mirrored(platformId: string) {
    return database.db.select().from(tradingAccounts).where(eq(tradingAccounts.platformId, platformId));
  }

  async function allAccounts(connector: TradePlatformConnector) {
    const all = [];
    for (let cursor: string | null | undefined = undefined; ;) {
      const page = await connector.listAccounts({ cursor, limit: 1000 });
      all.push(...page.items);
      if (!page.nextCursor) return all;
      cursor = page.nextCursor;
    }
  }

  async function expectMirrorMatches(platformId: string, connector: TradePlatformConnector) {
    const rows = new Map((await mirrored(platformId)).map((r) => [r.login, r]));
    const accounts = await allAccounts(connector);
    expect(rows.size).toBe(accounts.length);
    for (const a of accounts) {
      const row = rows.get(a.login);
      expect(row, `account ${a.login}`).toBeDefined();
      expect({ group: row!.group, balance: row!.balance, credit: row!.credit, leverage: row!.leverage, enabled: row!.enabled }).toEqual({
        group: a.group,
        balance: moneyToDecimal(a.balance),
        credit: moneyToDecimal(a.credit),
        leverage: a.leverage,
        enabled: a.enabled,
      });
    }
  }

  /** Each row's version: xmin changes with every write of the row, even of equal values. */
  async function versions(platformId: string) {
    const result = await database.db.execute(
      sql`select login, xmin::text as version, generation::text as generation from trading_accounts where platform_id = ${platformId}::uuid`,
    );
    return new Map(rowsOf<{ login: string; version: string; generation: string }>(result).map((r) => [r.login, `${r.version}/${r.generation}`]));
  }

  function rewritten(before: Map<string, string>, after: Map<string, string>) {
    return [...after]
      .filter(([login, version]) => before.get(login) !== version)
      .map(([login]) => login)
      .sort();
  }

  async function until(check: () => Promise<boolean> | boolean, timeoutMs = 5000) {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error("timed out waiting");
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  it("syncs every account of a platform in pages, with its organization, money as exact decimals", async () => {
    const { platform: p, connector } = await simulated(2_345);
    const mirror = newMirror({ pageSize: 500 });
    mirror.attach(p, connector);
    const status = await mirror.whenSynced(p.id);
    expect(status.accounts).toBe(2_345);
    expect(status.phase).toBe("live");
    const rows = await mirrored(p.id);
    expect(rows).toHaveLength(2_345);
    expect(new Set(rows.map((r) => r.organizationId))).toEqual(new Set([organizationId]));
    expect(rows[0]!.balance).toMatch(/^-?\d+\.\d\d$/);
    await expectMirrorMatches(p.id, connector);
  });

  it("applies live account changes: balance operations, settings, and trading", async () => {
    const { platform: p, connector, server } = await simulated(300, "MT4");
    const mirror = newMirror();
    mirror.attach(p, connector);
    await mirror.whenSynced(p.id);

    const [first] = (await connector.listAccounts({ limit: 1 })).items;
    const login = first!.login;
    await connector.balanceOperation({ operationId: randomUUID(), login, type: "deposit", amount: 12_345, comment: "mirror test" });
    await connector.updateAccount(login, { leverage: 333, readOnly: true });
    server.traders.step(200);
    await mirror.whenCaughtUp(p.id);

    const [row] = await database.db
      .select()
      .from(tradingAccounts)
      .where(sql`${tradingAccounts.platformId} = ${p.id} and ${tradingAccounts.login} = ${login}`);
    expect(row!.balance).toBe(moneyToDecimal((await connector.getAccount(login)).balance));
    expect(row!.leverage).toBe(333);
    expect(row!.readOnly).toBe(true);
    await expectMirrorMatches(p.id, connector);
  });

  it("refreshes equity and margin of accounts that traded", async () => {
    // Prices stand still, so only the trades change the figures: the mirror must catch up with them
    // (with a moving feed, the mirror's figures and a fresh read only meet between two ticks).
    const { platform: p, connector, server } = await frozen(50, "MatchTrader");
    const mirror = newMirror({ figuresRefreshMs: 30 });
    mirror.attach(p, connector);
    await mirror.whenSynced(p.id);
    server.traders.step(100);
    await mirror.whenCaughtUp(p.id);
    const live = new Map((await allAccounts(connector)).map((a) => [a.login, a]));
    expect([...live.values()].some((a) => a.margin !== 0)).toBe(true);
    await until(async () => {
      const rows = await mirrored(p.id);
      return rows.every((r) => r.margin === moneyToDecimal(live.get(r.login)!.margin) && r.equity === moneyToDecimal(live.get(r.login)!.equity));
    }, 20_000);
  });

  it("keeps following across a dropped link: nothing missed", async () => {
    const { platform: p, connector, server } = await simulated(200);
    const mirror = newMirror();
    mirror.attach(p, connector);
    await mirror.whenSynced(p.id);

    server.faults.disconnect();
    await until(() => connector.state === "reconnecting");
    server.traders.step(150);
    const login = server.engine.listAccounts(null, 1, null)[0]!.login;
    server.engine.balance({ operationId: randomUUID(), login, type: "creditIn", amount: 777, comment: "while away" });
    await connector.connect();
    mirror.attach(p, connector); // the runtime says "connected" again: same connector, nothing to redo
    await mirror.whenCaughtUp(p.id);
    await expectMirrorMatches(p.id, connector);
  });

  it("resumes from the last applied event when the same connector comes back after a disconnect", async () => {
    const { platform: p, connector, server } = await simulated(200);
    const mirror = newMirror();
    mirror.attach(p, connector);
    await mirror.whenSynced(p.id);

    await connector.disconnect(); // e.g. the platform was disabled: the stream ends
    await until(() => mirror.status(p.id)!.phase === "waiting");
    server.traders.step(100);
    await connector.connect();
    mirror.attach(p, connector);
    await mirror.whenCaughtUp(p.id);
    expect(mirror.status(p.id)!.phase).toBe("live");
    expect(mirror.status(p.id)!.syncs).toBe(1); // resumed from its sequence: no second full sync
    await expectMirrorMatches(p.id, connector);
  });

  it("resyncs fully when the events it needs are gone, and removes accounts the platform no longer has", async () => {
    const p = await platform("MT5");
    const server = new SimulatedServer({ platform: "MT5", accounts: 150, tradeRate: 0, seed: 3 });
    server.start();
    const connector = createSimulatedConnector(server, { retainedEvents: 10 });
    cleanups.push(async () => {
      await connector.disconnect();
      server.stop();
    });
    await connector.connect();
    const mirror = newMirror();
    mirror.attach(p, connector);
    await mirror.whenSynced(p.id);
    // A row the platform does not have (deleted there while Toolbox was away).
    await database.db.execute(
      sql`insert into trading_accounts (organization_id, platform_id, login, "group", name, email, leverage, currency, balance, credit, equity, margin, free_margin, margin_state, enabled, read_only, registration, updated_at)
          values (${organizationId}, ${p.id}, '99999999', 'x', 'Gone', '', 100, 'USD', 0, 0, 0, 0, 0, 'ok', true, false, now(), now() - interval '1 hour')`,
    );

    await connector.disconnect();
    await until(() => mirror.status(p.id)!.phase === "waiting");
    server.traders.step(300); // far more than the 10 events the connector keeps
    await connector.connect();
    await until(() => connector.subscribe().lastSequence > 40);
    mirror.attach(p, connector);
    await until(async () => mirror.status(p.id)!.syncs === 2 && mirror.status(p.id)!.phase === "live");
    expect((await mirrored(p.id)).some((r) => r.login === "99999999")).toBe(false);
    await mirror.whenCaughtUp(p.id);
    await expectMirrorMatches(p.id, connector);
  });

  it("retries after a failure and starts over on a new connector", async () => {
    const { platform: p, connector, server } = await simulated(120, "MT4");
    server.faults.disconnect({ refuseReconnect: true });
    await until(() => connector.state === "reconnecting");
    const mirror = newMirror();
    mirror.attach(p, connector);
    await until(() => mirror.status(p.id)!.phase === "retrying");
    expect(mirror.status(p.id)!.lastError).toMatch(/trading server/);
    server.faults.restore();
    const fresh = createConnector({ kind: "simulated", platform: "MT4", serverKey: p.id }, { simulatedServers: registry });
    await fresh.connect();
    cleanups.push(() => fresh.disconnect());
    mirror.attach(p, fresh);
    await mirror.whenSynced(p.id);
    await expectMirrorMatches(p.id, fresh);
  });

  it("stops following a removed platform", async () => {
    const { platform: p, connector, server } = await simulated(100);
    const mirror = newMirror();
    mirror.attach(p, connector);
    await mirror.whenSynced(p.id);
    await mirror.detach(p.id);
    expect(mirror.status(p.id)).toBeUndefined();
    const before = (await mirrored(p.id)).map((r) => r.balance).join();
    server.traders.step(200);
    await new Promise((r) => setTimeout(r, 50));
    expect((await mirrored(p.id)).map((r) => r.balance).join()).toBe(before);
  });

  it("writes no row when a resync finds nothing changed", async () => {
    const { platform: p, connector } = await frozen(1_200);
    const mirror = newMirror({ pageSize: 500 });
    mirror.attach(p, connector);
    await mirror.whenSynced(p.id);
    const before = await versions(p.id);
    expect(await mirror.resync(p.id)).toEqual({ listed: 1_200, written: 0, removed: 0 });
    expect(rewritten(before, await versions(p.id))).toEqual([]);
  });

  it("writes exactly the accounts that changed while the mirror was away", async () => {
    const { platform: p, connector } = await frozen(400);
    const first = newMirror();
    first.attach(p, connector);
    await first.whenSynced(p.id);
    await first.stopAll(); // Toolbox restarts: these changes reach it by the sync, not as events
    const [a, b] = (await connector.listAccounts({ limit: 2 })).items;
    await connector.updateAccount(a!.login, { leverage: 333 });
    await connector.balanceOperation({ operationId: randomUUID(), login: b!.login, type: "deposit", amount: 50_00, comment: "while away" });
    const before = await versions(p.id);

    const second = newMirror({ pageSize: 150 });
    second.attach(p, connector);
    await second.whenSynced(p.id);
    expect(rewritten(before, await versions(p.id))).toEqual([a!.login, b!.login].sort());
    await expectMirrorMatches(p.id, connector);
  });

  it("a resync corrects rows that differ from the platform and removes accounts it no longer has", async () => {
    const { platform: p, connector } = await frozen(300);
    const mirror = newMirror();
    mirror.attach(p, connector);
    await mirror.whenSynced(p.id);
    const [a] = (await connector.listAccounts({ limit: 1 })).items;
    await database.db.execute(sql`update trading_accounts set equity = equity + 1 where platform_id = ${p.id}::uuid and login = ${a!.login}`);
    await database.db.execute(
      sql`insert into trading_accounts (organization_id, platform_id, login, "group", name, email, leverage, currency, balance, credit, equity, margin, free_margin, margin_state, enabled, read_only, registration)
          values (${organizationId}, ${p.id}, '99999999', 'x', 'Gone', '', 100, 'USD', 0, 0, 0, 0, 0, 'ok', true, false, now())`,
    );
    const before = await versions(p.id);
    expect(await mirror.resync(p.id)).toEqual({ listed: 300, written: 1, removed: 1 });
    const after = await versions(p.id);
    expect(after.has("99999999")).toBe(false);
    expect(rewritten(before, after)).toEqual([a!.login]);
    await expectMirrorMatches(p.id, connector);
  });

  it("removes only rows written before the sync began: an account created meanwhile stays", async () => {
    const { platform: p, connector } = await frozen(2_500);
    const mirror = newMirror();
    mirror.attach(p, connector);
    await mirror.whenSynced(p.id);
    await mirror.stopAll();
    const syncBegan = await nextGeneration(database.db);
    await database.db.execute(
      sql`insert into trading_accounts (organization_id, platform_id, login, "group", name, email, leverage, currency, balance, credit, equity, margin, free_margin, margin_state, enabled, read_only, registration)
          values (${organizationId}, ${p.id}, '77777777', 'x', 'Created meanwhile', '', 100, 'USD', 0, 0, 0, 0, 0, 'ok', true, false, now())`,
    );
    // Every tenth account "vanished" from the platform; the walk crosses chunks of 1,000 logins.
    const listed = new Set((await allAccounts(connector)).filter((_, i) => i % 10 !== 0).map((a) => a.login));
    expect(await removeAccountsNotListed(database.db, p.id, { writtenBefore: syncBegan, listed })).toBe(250);
    const left = new Set((await mirrored(p.id)).map((r) => r.login));
    expect(left).toEqual(new Set([...listed, "77777777"]));
  });

  it("the periodic sync writes what changed, removes what is gone, and leaves the rest untouched", async () => {
    const { platform: p, connector } = await frozen(200);
    const mirror = newMirror({ fullRefreshMs: 40 });
    mirror.attach(p, connector);
    await mirror.whenSynced(p.id);
    const [a] = (await connector.listAccounts({ limit: 1 })).items;
    // Row versions before the tampering: a pass that runs between the two writes below and the
    // snapshot cannot hide its own write (the periodic sync runs every 40 ms).
    const before = await versions(p.id);
    await database.db.execute(sql`update trading_accounts set leverage = 1 where platform_id = ${p.id}::uuid and login = ${a!.login}`);
    await database.db.execute(
      sql`insert into trading_accounts (organization_id, platform_id, login, "group", name, email, leverage, currency, balance, credit, equity, margin, free_margin, margin_state, enabled, read_only, registration)
          values (${organizationId}, ${p.id}, '99999998', 'x', 'Gone', '', 100, 'USD', 0, 0, 0, 0, 0, 'ok', true, false, now())`,
    );
    await until(async () => {
      const rows = await mirrored(p.id);
      return rows.length === 200 && rows.find((r) => r.login === a!.login)!.leverage === a!.leverage;
    });
    await until(() => mirror.status(p.id)!.syncs >= 3); // a later pass finds nothing to do
    expect(rewritten(before, await versions(p.id))).toEqual([a!.login]);
  });
});
