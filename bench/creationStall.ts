/**
 * The event-loop measure of ./platformCreationStall.ts on a fresh app of its own: on PGlite (the
 * default database; it runs on its own thread, decision 0046, so its work should not show here)
 * or on a new PostgreSQL database. `npm run bench` runs it on PGlite after the PostgreSQL figure;
 * `npm run bench -- stall` runs only this measure, on both databases (`stall postgres` or
 * `stall pglite` for one; BENCH_STALL_RUNS times each, 1 by default), so it can be profiled alone:
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/run.ts stall pglite
 */
import fs from "node:fs";
import os from "node:os";
import { openDatabase } from "../server/db/client.ts";
import { withEmptyPostgresDatabase } from "../tests/helpers/postgres.ts";
import { measurePlatformCreationStall } from "./platformCreationStall.ts";
import { benchApp, benchDataDir } from "./benchApp.ts";

export type StallDatabase = "postgres" | "pglite";

/** A fresh app on PGlite (no `databaseUrl`) or on the PostgreSQL database at `databaseUrl`; the longest stall while a server is created. */
export async function measureCreationStallOnFreshApp(options: { databaseUrl?: string; accounts: number; line: (text: string) => void }): Promise<number> {
  const { databaseUrl, accounts, line } = options;
  const dataDir = benchDataDir();
  const database = await openDatabase({ databaseUrl, dataDir });
  const bench = await benchApp(database, { dataDir });
  const { app, ctx } = bench;
  try {
    const { headers } = await bench.signUp("Bench Stall");
    line("");
    line(databaseUrl ? "(on PostgreSQL, a fresh database)" : "(on the embedded database, PGlite)");
    return await measurePlatformCreationStall({ app, ctx, headers, accounts, line });
  } finally {
    await bench.close();
    await database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `npm run bench -- stall`: only the creation-stall measure, `runs` times on each database asked for. */
export async function creationStallBench(options: {
  adminUrl: string;
  accounts: number;
  runs: number;
  databases: readonly StallDatabase[];
  line: (text: string) => void;
}): Promise<void> {
  const { adminUrl, accounts, runs, databases, line } = options;
  line(`Creation stall only — Node ${process.version}, ${os.availableParallelism()} CPU(s), ${runs} run(s) on ${databases.join(" and ")}`);
  const worst = new Map<StallDatabase, number[]>();
  for (let run = 0; run < runs; run++)
    for (const kind of databases) {
      const stall =
        kind === "pglite"
          ? await measureCreationStallOnFreshApp({ accounts, line })
          : await withEmptyPostgresDatabase(adminUrl, "toolbox_bench_stall", (databaseUrl) => measureCreationStallOnFreshApp({ databaseUrl, accounts, line }));
      worst.set(kind, [...(worst.get(kind) ?? []), stall]);
    }
  line("");
  for (const [kind, stalls] of worst) line(`${kind}: longest stall per run ${stalls.map((s) => `${s.toFixed(1)} ms`).join(", ")}`);
}
