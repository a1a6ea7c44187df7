/**
 * The trade history store's live writer at full speed (server/modules/tradeHistory/liveApplier.ts):
 * realistic trade events of one platform (./blotter/syntheticTrades.ts: opens, stop changes,
 * closes and their deals, 500 logins) pushed at once, and the time until they are written, on
 * PostgreSQL and on the embedded PGlite. At a sustained rate above this figure the writer's queue
 * fills and its events are read again from the platform instead (decision 0061), so it is the rate
 * the store follows live. Node's CPU includes PGlite's thread; PostgreSQL's own is not in it.
 *
 * `npm run bench -- writer` runs this alone (BENCH_WRITER_EVENTS, 200,000).
 */
import { SyntheticTrades } from "./blotter/syntheticTrades.ts";
import type { Database } from "../server/db/client.ts";
import { organizations, tradePlatforms } from "../server/db/schema.ts";
import type { LiveTradeEvent } from "../server/modules/tradeHistory/liveApplier.ts";
import { LiveApplier } from "../server/modules/tradeHistory/liveApplier.ts";
import { createPgliteDatabase, createPostgresDatabase, postgresProblem, type DroppableDatabase } from "../tests/helpers/postgres.ts";

type Line = (text: string) => void;
const n = (value: number) => Math.round(value).toLocaleString("en-US");

async function measure(database: Database, events: number): Promise<{ seconds: number; cpu: number; failed: number }> {
  const [org] = await database.db.insert(organizations).values({ name: "Writer bench" }).returning();
  const [platform] = await database.db.insert(tradePlatforms).values({ organizationId: org!.id, name: "Writer", type: "MT5", enable: false }).returning();
  const logins = Array.from({ length: 500 }, (_, i) => String(100_000 + i));
  const trades = new SyntheticTrades(org!.id, platform!.id, logins, [
    { name: "EURUSD", price: 1.08, digits: 5 },
    { name: "XAUUSD", price: 2300, digits: 2 },
    { name: "BTCUSD", price: 60_000, digits: 2 },
  ]);
  const live = (count: number) => trades.batch(count) as LiveTradeEvent[];
  let failed = 0;
  // No bound: the figure is how fast it writes, not what it drops.
  const applier = new LiveApplier(database.db, { onError: () => void failed++ }, Number.MAX_SAFE_INTEGER);
  try {
    for (const event of live(5000)) applier.push(event);
    await applier.settled();
    const batch = live(events);
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    for (const event of batch) applier.push(event);
    await applier.settled();
    const seconds = (performance.now() - t0) / 1000;
    const used = process.cpuUsage(cpu);
    return { seconds, cpu: (used.user + used.system) / 1e6 / seconds, failed };
  } finally {
    await applier.stop();
  }
}

export async function historyWriterBench({ adminUrl, line }: { adminUrl: string; line: Line }): Promise<void> {
  const events = Number(process.env.BENCH_WRITER_EVENTS ?? 200_000);
  line(`== Trade history writer: ${n(events)} trade events pushed at once, written in batches ==`);
  const kinds: [string, () => Promise<DroppableDatabase>][] = [["PGlite", () => createPgliteDatabase()]];
  if ((await postgresProblem(adminUrl)) === null) kinds.unshift(["PostgreSQL", () => createPostgresDatabase(adminUrl, "toolbox_bench_writer")]);
  else line("(no PostgreSQL answered: PGlite only)");
  for (const [label, open] of kinds) {
    const database = await open();
    try {
      const f = await measure(database, events);
      line(
        `${label.padEnd(10)} ${n(events / f.seconds)} events/s (${f.seconds.toFixed(2)} s), Node CPU ${(f.cpu * 100).toFixed(0)}% of a core` +
          (f.failed > 0 ? `, ${f.failed} batches FAILED` : ""),
      );
    } finally {
      await database.drop();
    }
  }
}
