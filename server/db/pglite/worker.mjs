// The embedded database (PGlite) on its own thread. PGlite runs PostgreSQL compiled to WebAssembly
// synchronously on whatever thread calls it: here, so that a long statement (a page of the accounts
// mirror filling 20 indexes) never holds up the server's event loop. The server talks to this
// worker through ./proxy.ts, which gives Drizzle the PGlite interface it expects.
//
// Plain JavaScript, so that the worker starts the same way under `node --import tsx`, Vitest and
// the benchmarks. Messages: see ./protocol.ts.
import { readFileSync, readlinkSync, renameSync, writeFileSync } from "node:fs";
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";

const port = parentPort;
if (!port) throw new Error("server/db/pglite/worker.mjs runs as a worker thread");

/**
 * On Linux, this thread yields the CPU to the server's event loop: with two cores, a long
 * statement here and the garbage collector's helpers could otherwise keep the event loop waiting
 * for a core for tens of milliseconds (decision 0046). setpriority() on a thread id changes only
 * that thread. Elsewhere (or where not allowed) nothing changes.
 */
function yieldCpuToTheEventLoop() {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, 5);
  } catch {
    // not Linux, or not permitted: the thread keeps the default priority
  }
}
yieldCpuToTheEventLoop();

/** @type {PGlite} */
let db;
/** Open transactions: id → { tx, finish(commit: boolean) }. */
const transactions = new Map();
/** Active LISTEN registrations: id → unlisten(). */
const listeners = new Map();
let nextId = 1;

const ROLLBACK = Symbol("rollback");

/** PGlite's options for a query: the result types the caller wants as raw text keep their text. */
function queryOptions(rowMode, rawTypes) {
  const options = { rowMode: rowMode ?? "object" };
  if (rawTypes?.length) options.parsers = Object.fromEntries(rawTypes.map((oid) => [oid, (value) => value]));
  return options;
}

/** What an error carries across the thread boundary: its message and PostgreSQL's fields. */
function errorFields(error) {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields = { message: error.message, name: error.name };
  for (const key of ["code", "detail", "hint", "constraint", "table", "column", "schema", "dataType", "severity", "position", "where", "routine"]) {
    if (error[key] !== undefined) fields[key] = error[key];
  }
  return fields;
}

const operations = {
  /**
   * `template`: a file written by `dumpTo` to start from instead of running initdb (seconds on a
   * small machine). Tests use it for their many throw-away in-memory databases.
   */
  async open({ dataDir, template }) {
    const loadDataDir = template ? new Blob([readFileSync(template)]) : undefined;
    db = await PGlite.create({ dataDir, extensions: { pg_trgm }, loadDataDir });
    return null;
  },
  /** Writes the whole database to `path` (written beside it, then renamed: readers never see half a file). */
  async dumpTo({ path }) {
    const dump = await db.dumpDataDir("none");
    const partial = `${path}.${process.pid}.${Date.now()}.partial`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, path);
    return null;
  },
  async query({ sql, params, rowMode, rawTypes, tx }) {
    const target = tx ? transactions.get(tx)?.tx : db;
    if (!target) throw new Error("The transaction has already ended.");
    const result = await target.query(sql, params, queryOptions(rowMode, rawTypes));
    return { rows: result.rows, fields: result.fields, affectedRows: result.affectedRows };
  },
  async exec({ sql, tx }) {
    const target = tx ? transactions.get(tx)?.tx : db;
    if (!target) throw new Error("The transaction has already ended.");
    const results = await target.exec(sql);
    return results.map((r) => ({ rows: r.rows, fields: r.fields, affectedRows: r.affectedRows }));
  },
  /** Opens a transaction and answers with its id once it holds PGlite; it ends with `end`. */
  begin() {
    return new Promise((resolve, reject) => {
      const id = nextId++;
      db.transaction(
        (tx) =>
          new Promise((finishResolve, finishReject) => {
            transactions.set(id, { tx, finish: (commit) => (commit ? finishResolve() : finishReject(ROLLBACK)) });
            resolve(id);
          }),
      ).then(
        () => transactions.get(id)?.settle?.(null),
        (error) => {
          const entry = transactions.get(id);
          if (entry) entry.settle?.(error === ROLLBACK ? null : error);
          else reject(error);
        },
      );
    });
  },
  /** Commits (or rolls back) a transaction; answers once PGlite has. */
  end({ tx, commit }) {
    const entry = transactions.get(tx);
    if (!entry) return Promise.reject(new Error("The transaction has already ended."));
    return new Promise((resolve, reject) => {
      entry.settle = (error) => {
        transactions.delete(tx);
        if (error) reject(error);
        else resolve(null);
      };
      entry.finish(commit);
    });
  },
  async listen({ channel }) {
    const id = nextId++;
    const unlisten = await db.listen(channel, (payload) => port.postMessage({ notify: id, payload }));
    listeners.set(id, unlisten);
    return id;
  },
  async unlisten({ listener }) {
    const unlisten = listeners.get(listener);
    listeners.delete(listener);
    await unlisten?.();
    return null;
  },
  async close() {
    if (db && !db.closed) await db.close();
    return null;
  },
};

port.on("message", async (message) => {
  const { id, op } = message;
  try {
    const operation = operations[op];
    if (!operation) throw new Error(`Unknown database operation "${op}".`);
    port.postMessage({ id, result: await operation(message) });
  } catch (error) {
    port.postMessage({ id, error: errorFields(error) });
  }
});
