/**
 * The command log of a simulated server that keeps its state (decision 0069): every call that can
 * change the engine — a manager's request with its operation id, a price tick, a step of the
 * simulated traders — is recorded with the time it ran at, in the order it ran, and written to
 * the store in batches (one transaction each). Nothing a call did is seen before its batch is
 * written: the answer to the request and the events it made wait for `durable()`. So a crash
 * between the change and the write loses a change nobody saw (the client retries with the same
 * id and it happens once), and a crash after the write keeps it (replayed on restore; the retry
 * gets the remembered result). Restoring is the last snapshot plus the commands after it, run
 * again on the same engine code at the same times: the engine is deterministic from its state.
 *
 * Passwords never reach the log: a call that carries one is not recorded, a snapshot (which holds
 * hashes only) is written in its place, before its answer.
 *
 * The server's own clockwork (price ticks, the simulated traders' steps: about ten calls a second
 * per server) is gathered for up to `gatherMs` before it is written, so a server costs its database
 * a few transactions a second instead of one per tick; its events (quotes, the traders' deals) reach
 * clients that much later. A manager's request does not wait: asking `durable({ now: true })`, as a
 * request's answer does, writes what is gathered at once (with the request), as before.
 */
import { captureState } from "./engineState.ts";

export interface RecordedCommand {
  seq: number;
  /** An engine method, or `traders.step`. */
  op: string;
  args: unknown[];
  /** The clock's time when it ran (the engine saw exactly this time throughout). */
  at: number;
}

export interface SavedSimulation {
  snapshot: Uint8Array;
  /** The last command the snapshot includes. */
  seq: number;
  /** The commands after it, oldest first. */
  commands: RecordedCommand[];
}

/** Where a simulated server keeps its state (the platform runtime's: a database table). */
export interface SimulationStore {
  /** The state saved last, or null for a server never saved. */
  load(): Promise<SavedSimulation | null>;
  /** Writes these commands in one transaction; rejects when they are not written (database away, or this node no longer runs the server). */
  append(commands: readonly RecordedCommand[]): Promise<void>;
  /** Saves the state as of command `seq` and drops the commands up to it, in one transaction. */
  saveSnapshot(snapshot: Uint8Array, seq: number): Promise<void>;
}

export class StoreFailure extends Error {
  constructor(readonly cause: unknown) {
    super("The simulated server's state could not be written.");
  }
}

export class CommandRecorder {
  private pending: RecordedCommand[] = [];
  /** Writes the batch being gathered without waiting out its window (null: none gathered, or already due). */
  private due: (() => void) | null = null;
  private snapshotDue = false;
  private sinceSnapshot = 0;
  /** The batch being gathered: resolves once it (and everything before it) is written. */
  private next: Promise<void> | null = null;
  /** The writes, one after another. */
  private tail: Promise<void> = Promise.resolve();
  private failure: StoreFailure | null = null;

  constructor(
    private readonly store: SimulationStore,
    private seq: number,
    private readonly options: {
      state: () => object;
      snapshotEvery: number;
      onFailure: (failure: StoreFailure) => void;
      /** How long the clockwork's calls are gathered before they are written (0: at once). */
      gatherMs?: number;
    },
  ) {}

  get lastSeq(): number {
    return this.seq;
  }

  record(op: string, args: unknown[], at: number): void {
    this.pending.push({ seq: ++this.seq, op, args, at });
    this.schedule();
  }

  /** A change whose arguments must not be written (a password): the next write is a snapshot, at once. */
  recordBySnapshot(): void {
    this.snapshotDue = true;
    this.schedule();
    this.due?.();
  }

  /**
   * Resolves once everything recorded so far is written; rejects (StoreFailure) if it never will be.
   * `now`: someone waits for it (a request's answer), so what is gathered is written without
   * waiting out the window.
   */
  durable(options: { now?: boolean } = {}): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (options.now) this.due?.();
    return this.next ?? this.tail;
  }

  /** Writes a snapshot now (after what is recorded): a clean stop, so a restore replays nothing. */
  snapshotNow(): Promise<void> {
    this.snapshotDue = true;
    this.schedule();
    return this.durable({ now: true });
  }

  private schedule(): void {
    if (this.next || this.failure) return;
    const gatherMs = this.options.gatherMs ?? 0;
    const gathered = new Promise<void>((resolve) => {
      // Written in a later turn of the event loop either way: the calls of this turn go together.
      let timer: NodeJS.Timeout | null = null;
      const due = () => {
        if (this.due !== due) return;
        this.due = null;
        if (timer) clearTimeout(timer);
        setImmediate(resolve);
      };
      this.due = due;
      if (gatherMs > 0) timer = setTimeout(due, gatherMs);
      else due();
    }).then(() => this.write());
    gathered.catch(() => {});
    this.next = gathered;
  }

  private write(): Promise<void> {
    this.next = null;
    const batch = this.pending.splice(0);
    this.sinceSnapshot += batch.length;
    // Taken now, while the engine holds exactly the commands up to `seq`.
    let snapshot: { bytes: Uint8Array; seq: number } | null = null;
    if (this.snapshotDue || this.sinceSnapshot >= this.options.snapshotEvery) {
      snapshot = { bytes: captureState(this.options.state()), seq: this.seq };
      this.snapshotDue = false;
      this.sinceSnapshot = 0;
    }
    const written = this.tail.then(async () => {
      if (this.failure) throw this.failure;
      try {
        if (batch.length > 0) await this.store.append(batch);
        if (snapshot) await this.store.saveSnapshot(snapshot.bytes, snapshot.seq);
      } catch (error) {
        throw this.fail(error);
      }
    });
    written.catch(() => {});
    this.tail = written;
    return written;
  }

  private fail(error: unknown): StoreFailure {
    if (this.failure) return this.failure;
    const failure = error instanceof StoreFailure ? error : new StoreFailure(error);
    this.failure = failure;
    this.options.onFailure(failure);
    return failure;
  }
}
