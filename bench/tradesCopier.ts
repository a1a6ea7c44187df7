/**
 * The Trades Copier at speed (issue 26, docs/trades-copier.md): one source → 1, 100 and 1,000
 * followers on simulated servers, then 100 followers on the MT5 Web API protocol server running in
 * a process of its own (`scripts/simulator.ts`), reached over HTTPS as a real server is.
 *
 * The app is the real API (`benchApp`, production answers) on a fresh PostgreSQL database, the
 * engine included; links are made through the API. For each source fill (a market open of 0.01 lot
 * on the simulated MT5 source, followers at "same as source"), the copy ledger's own times give:
 *  - fill → all sent: the source deal's time to the last follower order sent (`sent_at`), per fill;
 *  - fill → all acknowledged: to the last follower answer (`acked_at`), per fill;
 *  - the engine's decision per follower order (`decided_at − received_at`).
 * p50/p99 over the fills (nearest rank). Each fill's copies are closed again (source close) before
 * the next, and waited for, so fills do not overlap. Targets: p99 fill → all sent ≤ 20 ms at 1,000
 * followers, decision p99 ≤ 1 ms; on the MT5 Web API, fill → all acknowledged p99 ≤ 3× one order's
 * round trip through the same connector to the same server, measured in the same run.
 *
 * `npm run bench -- copier` runs it alone. BENCH_COPIER_FILLS (20 per size), BENCH_COPIER_SIZES
 * ("1,100,1000"), BENCH_COPIER_MT5=0 skips the MT5 Web API part.
 */
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import type { TradePlatformConnector } from "../server/connectors/connector.ts";
import { rowsOf } from "../server/db/rows.ts";
import { copierEngineOf } from "../server/modules/tradesCopier/engine/plugin.ts";
import { benchApp, type BenchApp } from "./benchApp.ts";
import { withBenchDatabase } from "./benchDatabase.ts";

type Line = (text: string) => void;

const FILLS = Number(process.env.BENCH_COPIER_FILLS ?? 20);
const SIZES = (process.env.BENCH_COPIER_SIZES ?? "1,100,1000").split(",").map(Number);
const MT5_FOLLOWERS = 100;
const VOLUME = 100; // 0.01 lot in Volume units (lots × 10,000)
/** Crypto: its market is open every day, so the bench runs at any hour. */
const SYMBOL = "BTCUSD";

const n = (value: number) => Math.round(value).toLocaleString("en-US");
const f1 = (value: number | null) => (value === null ? "—" : `${value.toFixed(1)} ms`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

function nearestRank(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

async function until<T>(what: string, check: () => Promise<T | undefined | null | false>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

interface Fill {
  allSent: number;
  allAcked: number;
  decisions: number[];
}

/** What one fill's ledger rows say (state done for every follower), or undefined while some are not done. */
async function fillOf(bench: BenchApp, linkId: string, sourceId: string, followers: number): Promise<Fill | undefined> {
  const result = await bench.ctx.database.db.execute(sql`
    select state,
      extract(epoch from (sent_at - source_time)) * 1000 as sent,
      extract(epoch from (acked_at - source_time)) * 1000 as acked,
      extract(epoch from (decided_at - received_at)) * 1000 as decision
    from copy_ledger where link_id = ${linkId}::uuid and source_id = ${sourceId} and source_action = 'open'`);
  const rows = rowsOf<{ state: string; sent: string | number | null; acked: string | number | null; decision: string | number }>(result);
  if (rows.length < followers || rows.some((r) => r.state === "pending")) return undefined;
  const failed = rows.filter((r) => r.state !== "done");
  if (failed.length > 0) throw new Error(`${failed.length} of ${rows.length} copies were not made (${failed[0]!.state})`);
  return {
    allSent: Math.max(...rows.map((r) => Number(r.sent))),
    allAcked: Math.max(...rows.map((r) => Number(r.acked))),
    decisions: rows.map((r) => Number(r.decision)),
  };
}

/** Every close of the source position's copies done (so the next fill starts on a quiet engine). */
async function closesDone(bench: BenchApp, linkId: string, sourceId: string, followers: number): Promise<boolean> {
  const result = await bench.ctx.database.db.execute(sql`
    select count(*)::int as done from copy_ledger
    where link_id = ${linkId}::uuid and source_id = ${sourceId} and source_action = 'close' and state <> 'pending'`);
  return Number(rowsOf<{ done: number }>(result)[0]!.done) >= followers;
}

async function tradableLogins(connector: TradePlatformConnector, count: number): Promise<string[]> {
  const logins: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await connector.listAccounts({ limit: 1000, cursor });
    for (const a of page.items) if (a.enabled && !a.readOnly && a.balance > 100_000) logins.push(a.login);
    cursor = page.nextCursor ?? null;
  } while (cursor && logins.length < count);
  if (logins.length < count) throw new Error(`only ${logins.length} tradable accounts, ${count} wanted`);
  return logins.slice(0, count);
}

/** Creates a link (followers at "same as source") and waits until this node's engine works it. */
async function linkOf(
  bench: BenchApp,
  headers: Record<string, string>,
  source: { platformId: string; login: string },
  followers: { platformId: string; login: string }[],
) {
  const res = await bench.app.inject({
    method: "POST",
    url: "/api/tradesCopier/links",
    headers,
    payload: { name: `Bench ${followers.length}`, source, followers: followers.map((account) => ({ account, volume: { mode: "same" } })) },
  });
  if (res.statusCode !== 201) throw new Error(`link: ${res.statusCode} ${res.body}`);
  const id = res.json<{ id: string }>().id;
  const engine = copierEngineOf(bench.ctx)!;
  await until("the engine to work the link", async () => engine.holds(id));
  await engine.settled();
  return id;
}

async function deleteLink(bench: BenchApp, headers: Record<string, string>, id: string): Promise<void> {
  const res = await bench.app.inject({ method: "DELETE", url: `/api/tradesCopier/links/${id}`, headers });
  if (res.statusCode >= 300) throw new Error(`delete link: ${res.statusCode} ${res.body}`);
}

/** `fills` source opens, each waited for on every follower, then closed and waited for. */
async function measureFills(
  bench: BenchApp,
  source: TradePlatformConnector,
  sourceLogin: string,
  linkId: string,
  followers: number,
  fills: number,
): Promise<{ sent: number[]; acked: number[]; decisions: number[] }> {
  const sent: number[] = [];
  const acked: number[] = [];
  const decisions: number[] = [];
  // One unmeasured fill first: the engine's and the drivers' first use.
  for (let i = -1; i < fills; i++) {
    const { positionId } = await source.placeOrder({ requestId: crypto.randomUUID(), login: sourceLogin, symbol: SYMBOL, side: "buy", volume: VOLUME });
    const sourceId = `position:${positionId}`;
    const fill = await until(`the copies of fill ${i + 1}`, () => fillOf(bench, linkId, sourceId, followers));
    if (i >= 0) {
      sent.push(fill.allSent);
      acked.push(fill.allAcked);
      decisions.push(...fill.decisions);
    }
    await source.closePosition({ requestId: crypto.randomUUID(), positionId });
    await until(`the closes of fill ${i + 1}`, () => closesDone(bench, linkId, sourceId, followers));
  }
  return { sent, acked, decisions };
}

function report(line: Line, label: string, figures: { sent: number[]; acked: number[]; decisions: number[] }): void {
  line(
    `${label.padEnd(34)} fill → all sent p50 ${f1(nearestRank(figures.sent, 0.5))} p99 ${f1(nearestRank(figures.sent, 0.99))}; ` +
      `fill → all acknowledged p50 ${f1(nearestRank(figures.acked, 0.5))} p99 ${f1(nearestRank(figures.acked, 0.99))}; ` +
      `decision per follower order p50 ${f1(nearestRank(figures.decisions, 0.5))} p99 ${f1(nearestRank(figures.decisions, 0.99))} (${n(figures.decisions.length)} orders)`,
  );
}

/** Starts the MT5 Web API protocol server in a process of its own (scripts/simulator.ts); answers its address and CA. */
async function startMt5Simulator(accounts: number): Promise<{ child: ChildProcess; address: string; ca: string; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolbox-bench-copier-sim-"));
  const port = await freePort();
  const controlPort = await freePort();
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "scripts/simulator.ts",
      "--only",
      "mt5WebApi",
      "--accounts",
      String(accounts),
      "--trade-rate",
      "0",
      "--port",
      `mt5WebApi=${port}`,
      "--control-port",
      String(controlPort),
      "--dir",
      dir,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  await until("the MT5 Web API simulator to start", async () => out.includes("Ctrl+C stops"), 120_000);
  return { child, address: `127.0.0.1:${port}`, ca: fs.readFileSync(path.join(dir, "ca.pem"), "utf8"), dir };
}

export async function tradesCopierBench({ adminUrl, line }: { adminUrl: string; line: Line }): Promise<void> {
  line(`== Trades Copier: one source → ${SIZES.join(", ")} followers (simulated), ${MT5_FOLLOWERS} on the MT5 Web API out of process; ${FILLS} fills each ==`);
  line(`load average before: ${load()} (2 cores, shared with other work)`);
  await withBenchDatabase(adminUrl, async (database) => {
    const bench = await benchApp(database, {
      env: { NODE_ENV: "production", TRADE_SERVER_ALLOWED_TARGETS: "127.0.0.1", TOOLBOX_MAX_SIMULATED_PLATFORMS: "10" },
    });
    let simulator: Awaited<ReturnType<typeof startMt5Simulator>> | undefined;
    try {
      const { headers, organizationId } = await bench.signUp("Copier bench");
      const api = async (method: "POST" | "PUT", url: string, payload: unknown) => {
        const res = await bench.app.inject({ method, url, headers, payload: payload as object });
        if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
        return res.json<{ id: string }>();
      };
      const platform = async (body: object) => {
        const { id } = await api("POST", "/api/tradePlatforms", body);
        await api("PUT", `/api/tradePlatforms/${id}/apps`, [{ app: "tradesCopier", enabled: true }]);
        await until("the platform to connect", async () => bench.app.platforms.state(id).state === "connected");
        return id;
      };
      const sourceId = await platform({
        type: "MT5",
        name: "Source",
        timeZone: "UTC",
        connection: { kind: "simulated", accounts: 10, tradeRate: 0, seed: 61 },
      });
      const maxFollowers = Math.max(...SIZES);
      const followerId = await platform({
        type: "MT5",
        name: "Followers",
        timeZone: "UTC",
        connection: { kind: "simulated", accounts: Math.ceil(maxFollowers * 1.5) + 20, tradeRate: 0, seed: 62 },
      });
      const source = await bench.app.platforms.connectorFor(organizationId, sourceId);
      const followerConnector = await bench.app.platforms.connectorFor(organizationId, followerId);
      const sourceLogin = (await tradableLogins(source, 1))[0]!;
      const logins = await tradableLogins(followerConnector, maxFollowers);
      // Prices held still on both: the bench measures the copier, not the feed.
      for (const id of [sourceId, followerId]) bench.app.platforms.simulatedServer(id)!.engine.ctx.feed.control(SYMBOL, { stopped: true });

      for (const size of SIZES) {
        const linkId = await linkOf(
          bench,
          headers,
          { platformId: sourceId, login: sourceLogin },
          logins.slice(0, size).map((login) => ({ platformId: followerId, login })),
        );
        report(line, `1 → ${n(size)} (simulated MT5)`, await measureFills(bench, source, sourceLogin, linkId, size, FILLS));
        await deleteLink(bench, headers, linkId);
      }

      if (process.env.BENCH_COPIER_MT5 !== "0") {
        simulator = await startMt5Simulator(MT5_FOLLOWERS * 2 + 20);
        const mt5Id = await platform({
          type: "MT5",
          name: "MT5 Web API",
          timeZone: "UTC",
          connection: { kind: "mt5WebApi", address: simulator.address, login: "1000", password: "Manager1", caCertificate: simulator.ca },
        });
        const mt5 = await bench.app.platforms.connectorFor(organizationId, mt5Id);
        const mt5Logins = await tradableLogins(mt5, MT5_FOLLOWERS + 1);
        // One order's round trip through the same connector to the same server (open, then its close unmeasured).
        const trips: number[] = [];
        for (let i = 0; i < 21; i++) {
          const t0 = performance.now();
          const { positionId } = await mt5.placeOrder({
            requestId: crypto.randomUUID(),
            login: mt5Logins[MT5_FOLLOWERS]!,
            symbol: SYMBOL,
            side: "buy",
            volume: VOLUME,
          });
          if (i > 0) trips.push(performance.now() - t0);
          await mt5.closePosition({ requestId: crypto.randomUUID(), positionId });
        }
        const linkId = await linkOf(
          bench,
          headers,
          { platformId: sourceId, login: sourceLogin },
          mt5Logins.slice(0, MT5_FOLLOWERS).map((login) => ({ platformId: mt5Id, login })),
        );
        const figures = await measureFills(bench, source, sourceLogin, linkId, MT5_FOLLOWERS, FILLS);
        report(line, `1 → ${MT5_FOLLOWERS} (MT5 Web API, own process)`, figures);
        const trip = nearestRank(trips, 0.5)!;
        const p99 = nearestRank(figures.acked, 0.99)!;
        line(
          `  one order's round trip on the same connector and server: p50 ${f1(trip)} p99 ${f1(nearestRank(trips, 0.99))}; fill → all acknowledged p99 is ${(p99 / trip).toFixed(1)}× the round trip (target ≤ 3×)`,
        );
      }
      line("targets: fill → all sent p99 ≤ 20 ms at 1,000 followers; decision p99 ≤ 1 ms; MT5 Web API fill → all acknowledged p99 ≤ 3× one order's round trip");
      line(`load average after: ${load()}`);
    } finally {
      await bench.close();
      if (simulator) {
        simulator.child.kill("SIGTERM");
        fs.rmSync(simulator.dir, { recursive: true, force: true });
      }
    }
  });
}
