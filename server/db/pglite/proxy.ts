/**
 * The server's side of the embedded database: the part of PGlite's interface Drizzle uses
 * (`query`, `exec`, `transaction`) and `listen` (access changes, server/http/auth/changes.ts),
 * answered by PGlite running on its own thread (./worker.mjs). Statements run there, so the event
 * loop here only waits for their answers: a 100-row upsert that fills twenty indexes no longer
 * stalls every other request (docs/decisions/0046-pglite-on-its-own-thread.md).
 */
import { Worker } from "node:worker_threads";

interface QueryOptions {
  rowMode?: "array" | "object";
  /** Per type OID, how to parse a value. Only identity parsers cross the thread (what Drizzle passes: raw text for dates and times). */
  parsers?: Record<number, (value: string) => unknown>;
}

export interface ProxyResults<T = unknown> {
  rows: T[];
  fields: { name: string; dataTypeID: number }[];
  affectedRows?: number;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

type WorkerReply = { id: number; result?: unknown; error?: Record<string, unknown> & { message: string } } | { notify: number; payload: string };

/** An error from the database with PostgreSQL's fields (`code`, `constraint`, …), as PGlite raises it. */
function databaseError(fields: Record<string, unknown> & { message: string }): Error {
  const error = new Error(fields.message);
  Object.assign(error, fields);
  return error;
}

class Connection {
  private readonly pending = new Map<number, Pending>();
  private readonly notifications = new Map<number, (payload: string) => void>();
  private nextId = 1;
  private failure: Error | null = null;

  constructor(private readonly worker: Worker) {
    worker.on("message", (reply: WorkerReply) => {
      if ("notify" in reply) {
        this.notifications.get(reply.notify)?.(reply.payload);
        return;
      }
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (reply.error) waiting.reject(databaseError(reply.error));
      else waiting.resolve(reply.result);
    });
    const fail = (error: Error) => {
      this.failure = error;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`The embedded database stopped (worker exit ${code}).`)));
  }

  call<T>(op: string, args: Record<string, unknown> = {}): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve, reject });
      this.worker.postMessage({ id, op, ...args });
    });
  }

  onNotify(listener: number, callback: (payload: string) => void): void {
    this.notifications.set(listener, callback);
  }

  offNotify(listener: number): void {
    this.notifications.delete(listener);
  }

  terminate(): Promise<number> {
    return this.worker.terminate();
  }
}

/** Only identity parsers can be honoured on the other thread; anything else is a programming error. */
function rawTypes(options: QueryOptions | undefined): number[] | undefined {
  if (!options?.parsers) return undefined;
  return Object.entries(options.parsers).map(([oid, parse]) => {
    if (parse("x") !== "x") throw new Error(`Only raw-text parsers are supported by the embedded database proxy (type ${oid}).`);
    return Number(oid);
  });
}

/** Statements inside one transaction: PGlite's Transaction, as far as Drizzle uses it. */
export class ProxyTransaction {
  private ended = false;

  constructor(
    private readonly connection: Connection,
    private readonly id: number,
  ) {}

  get closed(): boolean {
    return this.ended;
  }

  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<ProxyResults<T>> {
    return this.connection.call("query", { sql, params, rowMode: options?.rowMode, rawTypes: rawTypes(options), tx: this.id });
  }

  exec(sql: string): Promise<ProxyResults[]> {
    return this.connection.call("exec", { sql, tx: this.id });
  }

  /** Ends the transaction, committing or rolling back (once). */
  async end(commit: boolean): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.connection.call("end", { tx: this.id, commit });
  }

  async rollback(): Promise<void> {
    await this.end(false);
  }
}

export class PgliteProxy {
  private isClosed = false;

  private constructor(private readonly connection: Connection) {}

  /**
   * Starts the worker and opens the database in `dataDir` (in memory when undefined), from
   * `template` (a file `dumpTo` wrote) when given.
   */
  static async open(dataDir: string | undefined, template?: string): Promise<PgliteProxy> {
    const worker = new Worker(new URL("./worker.mjs", import.meta.url));
    const connection = new Connection(worker);
    try {
      await connection.call("open", { dataDir, template });
    } catch (error) {
      await connection.terminate();
      throw error;
    }
    return new PgliteProxy(connection);
  }

  get closed(): boolean {
    return this.isClosed;
  }

  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<ProxyResults<T>> {
    return this.connection.call("query", { sql, params, rowMode: options?.rowMode, rawTypes: rawTypes(options) });
  }

  exec(sql: string): Promise<ProxyResults[]> {
    return this.connection.call("exec", { sql });
  }

  /**
   * Runs `fn` in a transaction: committed when it resolves, rolled back when it throws (or when it
   * called `rollback()`). Other statements wait until it ends, as they do in PGlite itself.
   */
  async transaction<T>(fn: (tx: ProxyTransaction) => Promise<T>): Promise<T> {
    const id = await this.connection.call<number>("begin");
    const tx = new ProxyTransaction(this.connection, id);
    let result: T;
    try {
      result = await fn(tx);
    } catch (error) {
      await tx.end(false).catch(() => {});
      throw error;
    }
    await tx.end(true);
    return result;
  }

  /** Writes the whole database to the file `path`, for `open(…, template)`. */
  async dumpTo(path: string): Promise<void> {
    await this.connection.call("dumpTo", { path });
  }

  /** LISTEN on `channel`; resolves to the function that stops listening. */
  async listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>> {
    const listener = await this.connection.call<number>("listen", { channel });
    this.connection.onNotify(listener, callback);
    return async () => {
      this.connection.offNotify(listener);
      await this.connection.call("unlisten", { listener });
    };
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    try {
      await this.connection.call("close");
    } finally {
      await this.connection.terminate();
    }
  }
}
