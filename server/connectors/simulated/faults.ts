/**
 * Faults a test (or a curious admin in demo mode) can switch on while the server runs: a dropped
 * connection, refusal to reconnect, slow answers, rejected operations, duplicated events, and an
 * internal failure of the server itself (its next timer throws).
 */
import type { Random } from "./random.ts";

export class Faults {
  /** Every answer (and connection attempt) waits this long. */
  delayMs = 0;
  /** New connections are refused as if the host were down. */
  refusingConnections = false;
  /** Nodes (NODE_ID) cut off from the server: their new connections are refused, the others' are not. */
  readonly cutNodes = new Set<string>();
  /** Each live event is delivered twice; connectors must drop the repeat. */
  duplicateEvents = false;
  /** The next order (open, stops change, close) is applied, then the connection drops before its answer. */
  dropAfterNextOrder = false;
  /** The next order is applied at once, then its answer waits this long (a client times out; the order happened). */
  slowNextOrderMs = 0;
  /** The next run of the server's timers (price feed, traders) throws this error. */
  private timerFailure: Error | null = null;
  private rejectCount = 0;
  private rejectShare = 0;

  constructor(
    private readonly random: Random,
    private readonly dropSessions: (node?: string) => void,
  ) {}

  /**
   * Drops every connection now; with `refuseReconnect`, also refuses new ones until restore().
   * With `node`: only that Toolbox node's connections (a cut between one node and the server; the
   * other nodes stay connected), and with `refuseReconnect` only that node's new ones are refused.
   */
  disconnect(options: { refuseReconnect?: boolean; node?: string } = {}): void {
    if (options.node !== undefined) {
      if (options.refuseReconnect) this.cutNodes.add(options.node);
      else this.cutNodes.delete(options.node);
      this.dropSessions(options.node);
      return;
    }
    this.refusingConnections = options.refuseReconnect ?? false;
    this.dropSessions();
  }

  /** Whether a connection from this node (undefined: not known) is refused now. */
  refuses(node: string | undefined): boolean {
    return this.refusingConnections || (node !== undefined && this.cutNodes.has(node));
  }

  slowAnswers(delayMs: number): void {
    this.delayMs = delayMs;
  }

  rejectNext(count: number): void {
    this.rejectCount = count;
  }

  rejectRatio(share: number): void {
    this.rejectShare = share;
  }

  duplicate(on: boolean): void {
    this.duplicateEvents = on;
  }

  /**
   * The server's next timer throws, as a bug in its own code would. Under a supervisor (the
   * platform runtime) the platform is stopped and restarted; without one the error ends the process.
   */
  failNextTimer(message = "Simulated internal failure of the trading server"): void {
    this.timerFailure = new Error(message);
  }

  /** Throws the failure switched on by failNextTimer, once. */
  takeTimerFailure(): void {
    const failure = this.timerFailure;
    this.timerFailure = null;
    if (failure) throw failure;
  }

  restore(): void {
    this.delayMs = 0;
    this.refusingConnections = false;
    this.cutNodes.clear();
    this.duplicateEvents = false;
    this.dropAfterNextOrder = false;
    this.slowNextOrderMs = 0;
    this.timerFailure = null;
    this.rejectCount = 0;
    this.rejectShare = 0;
  }

  /** Whether the next operation that changes something is refused. */
  takeRejection(): boolean {
    if (this.rejectCount > 0) {
      this.rejectCount--;
      return true;
    }
    return this.rejectShare > 0 && this.random.next() < this.rejectShare;
  }
}
