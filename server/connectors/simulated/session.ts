/**
 * One manager connection to a simulated server, speaking the platform's native shapes through its
 * codec. This is the simulated server's network edge: faults apply here (slow answers, refused
 * operations, duplicated events, dropped links), the engine behind it stays exact.
 */
import type { JournalFilter, PasswordKind } from "../../../core/trading/index.ts";
import { sleep, type Clock } from "../clock.ts";
import { ConnectorError, connectorErrors } from "../errors.ts";
import type { PlatformCodec } from "../wire/codec.ts";
import { LinkError, NativeError, type NativeTypes, type PacketBatch, type WireHandlers, type WireSession } from "../wire/wire.ts";
import type { SimulatedEngine } from "./engine/engine.ts";
import type { Transaction } from "./engine/transactions.ts";
import { noPlugins } from "./engine/plugins.ts";
import { withDealingDelay } from "./engine/dealing.ts";
import type { Faults } from "./faults.ts";

export class SimulatedSession<N extends NativeTypes> implements WireSession<N> {
  readonly openedAtSequence: number;
  private closed = false;
  private readonly unlisten: () => void;
  private readonly quoteListeners = new Set<() => void>();

  constructor(
    private readonly engine: SimulatedEngine,
    private readonly codec: PlatformCodec<N>,
    private readonly faults: Faults,
    private readonly clock: Clock,
    private readonly handlers: WireHandlers<N["event"]>,
    private readonly onClosed: (session: SimulatedSession<N>) => void,
    /** A failure while pushing events to the client (the server's, not the request's): see SimulatedServer.fault. */
    private readonly onFault: (error: unknown) => void,
    /** Resolves once the server's changes so far are written (a server that keeps its state): nothing is seen before. */
    private readonly durable: (options?: { now?: boolean }) => Promise<void> = () => Promise.resolve(),
  ) {
    this.openedAtSequence = engine.ctx.log.lastSequence;
    this.unlisten = engine.ctx.log.listen((tx) => this.push(tx));
  }

  /** Every tick of the server's feed, encoded as the platform sends quotes; stops with the session. */
  quoteStream(onTicks: (ticks: readonly N["quote"][]) => void): () => void {
    if (this.closed) return () => undefined;
    const stop = this.engine.ctx.feed.listen((ticks) => this.guarded(() => onTicks(ticks.map((q) => this.codec.quote.encode(q)))));
    this.quoteListeners.add(stop);
    return () => {
      stop();
      this.quoteListeners.delete(stop);
    };
  }

  /** Closed by the client. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const stop of this.quoteListeners) stop();
    this.quoteListeners.clear();
    this.unlisten();
    this.onClosed(this);
  }

  /** Closed by the server or the network: the client hears about it. */
  drop(): void {
    if (this.closed) return;
    this.close();
    queueMicrotask(() => this.guarded(() => this.handlers.onClose()));
  }

  serverTime() {
    return this.read(() => this.codec.time.encode(this.engine.serverTime()));
  }

  listAccounts(after: N["login"] | null, limit: number, groupMask: string | null) {
    return this.read(() =>
      this.engine.listAccounts(after === null ? null : this.codec.login.decode(after), limit, groupMask).map((a) => this.codec.account.encode(a)),
    );
  }

  getAccount(login: N["login"]) {
    return this.read(() => this.codec.account.encode(this.engine.getAccount(this.codec.login.decode(login))));
  }

  createAccount(request: N["newAccount"]) {
    return this.write(() => this.codec.account.encode(this.engine.createAccount(this.codec.newAccount.decode(request))));
  }

  updateAccount(login: N["login"], patch: N["accountPatch"]) {
    return this.write(() => this.codec.account.encode(this.engine.updateAccount(this.codec.login.decode(login), this.codec.accountPatch.decode(patch))));
  }

  setPassword(login: N["login"], password: string, kind: PasswordKind) {
    return this.write(() => this.engine.setPassword(this.codec.login.decode(login), password, kind));
  }

  listGroups() {
    return this.read(() => this.engine.groups().map((g) => this.codec.group.encode(g)));
  }

  listSymbols() {
    return this.read(() => this.engine.symbols().map((s) => this.codec.symbol.encode(s)));
  }

  getGroup(name: string) {
    return this.read(() => {
      const group = this.engine.groups().find((g) => g.name === name);
      if (!group) throw connectorErrors.notFound(`Group "${name}" does not exist on this server.`);
      return this.codec.group.encode(group);
    });
  }

  getSymbol(name: string) {
    return this.read(() => {
      const symbol = this.engine.symbols().find((s) => s.name === name);
      if (!symbol) throw connectorErrors.notFound(`Symbol ${name} does not exist on this server.`);
      return this.codec.symbol.encode(symbol);
    });
  }

  updateGroup(name: string, group: N["group"]) {
    return this.write(() => this.codec.group.encode(this.engine.updateGroup(name, this.codec.group.decode(group))));
  }

  updateSymbol(name: string, symbol: N["symbol"]) {
    return this.write(() => this.codec.symbol.encode(this.engine.updateSymbol(name, this.codec.symbol.decode(symbol))));
  }

  listHolidays() {
    return this.read(() => this.engine.holidays().map((h) => this.holidayCodec().encode(h)));
  }

  setHolidays(holidays: readonly object[]) {
    return this.write(() => {
      const codec = this.holidayCodec();
      return this.engine.setHolidays(holidays.map((h) => codec.decode(h))).map((h) => codec.encode(h));
    });
  }

  private holidayCodec() {
    if (!this.codec.holiday) throw connectorErrors.invalidRequest("Match-Trader has no server holidays: an instrument's trading hours say when it trades.");
    return this.codec.holiday;
  }

  getQuotes(symbols: readonly string[] | null) {
    return this.read(() => this.engine.quotes(symbols).map((q) => this.codec.quote.encode(q)));
  }

  openPositions(login: N["login"] | null) {
    return this.read(() => this.engine.positions(login === null ? null : this.codec.login.decode(login)).map((p) => this.codec.position.encode(p)));
  }

  openPositionsOf(logins: readonly N["login"][]) {
    return this.read(() => this.engine.positionsOf(logins.map((login) => this.codec.login.decode(login))).map((p) => this.codec.position.encode(p)));
  }

  history(login: N["login"], from: N["time"], to: N["time"]) {
    return this.read(() =>
      this.codec.history.encode(this.engine.history(this.codec.login.decode(login), this.codec.time.decode(from), this.codec.time.decode(to))),
    );
  }

  journal(from: N["time"], to: N["time"], filter: JournalFilter, limit: number) {
    return this.read(() =>
      this.engine.journal(this.codec.time.decode(from), this.codec.time.decode(to), filter, limit).map((j) => this.codec.journal.encode(j)),
    );
  }

  balance(request: N["balanceRequest"]) {
    return this.write(() => this.codec.balanceResult.encode(this.engine.balance(this.codec.balanceRequest.decode(request))));
  }

  placeOrder(request: N["orderRequest"]) {
    // The dealing profile's execution delay (./engine/dealing.ts) before the order reaches the engine.
    return withDealingDelay(this.engine.ctx, this.clock, () =>
      this.order(() => this.codec.orderResult.encode(this.engine.placeOrder(this.codec.orderRequest.decode(request)))),
    );
  }

  modifyPosition(request: N["modifyRequest"]) {
    return this.order(() => this.codec.orderResult.encode(this.engine.modifyPosition(this.codec.modifyRequest.decode(request))));
  }

  closePosition(request: N["closeRequest"]) {
    return this.order(() => this.codec.orderResult.encode(this.engine.closePosition(this.codec.closeRequest.decode(request))));
  }

  pendingOrders(login: N["login"] | null) {
    return this.read(() => this.engine.pendingOrders(login === null ? null : this.codec.login.decode(login)).map((o) => this.codec.pendingOrder.encode(o)));
  }

  /** MT4 lists no filled order: it became the market trade under the same ticket (docs/connectors.md, "Order history"). */
  orderHistory(login: N["login"] | null, from: N["time"], to: N["time"]) {
    return this.read(() =>
      this.engine
        .orderHistory(login === null ? null : this.codec.login.decode(login), this.codec.time.decode(from), this.codec.time.decode(to))
        .filter((f) => this.codec.platform !== "MT4" || f.state !== "filled")
        .map((f) => this.codec.finishedOrder.encode(f)),
    );
  }

  placePendingOrder(request: N["placePendingRequest"]) {
    return this.order(() => this.codec.pendingResult.encode(this.engine.placePendingOrder(this.codec.placePendingRequest.decode(request))));
  }

  modifyPendingOrder(request: N["modifyPendingRequest"]) {
    return this.order(() => this.codec.pendingResult.encode(this.engine.modifyPendingOrder(this.codec.modifyPendingRequest.decode(request))));
  }

  cancelPendingOrder(request: N["cancelPendingRequest"]) {
    return this.order(() => this.codec.pendingResult.encode(this.engine.cancelPendingOrder(this.codec.cancelPendingRequest.decode(request))));
  }

  /** A platform without plugins (Match-Trader: its codec has none) refuses in its own words. */
  listPlugins() {
    return this.read(() => {
      const codec = this.codec.plugin;
      if (!codec) throw noPlugins();
      return this.engine.plugins().map((p) => codec.encode(p));
    });
  }

  updatePlugin(update: N["pluginUpdate"]) {
    return this.write(() => {
      const { plugin, pluginUpdate } = this.codec;
      if (!plugin || !pluginUpdate) throw noPlugins();
      return plugin.encode(this.engine.updatePlugin(pluginUpdate.decode(update)));
    });
  }

  eventsSince(sequence: number, limit: number): Promise<PacketBatch<N["event"]>> {
    return this.read(() => {
      const { transactions, complete } = this.engine.ctx.log.since(sequence, limit);
      return {
        packets: transactions.map((tx) => this.packet(tx)),
        complete,
        latestSequence: this.engine.ctx.log.lastSequence,
      };
    });
  }

  private read<T>(run: () => T): Promise<T> {
    return this.answer(false, run);
  }

  private write<T>(run: () => T): Promise<T> {
    return this.answer(true, run);
  }

  /** An order: applied like any change, then the order faults (a lost or a late answer) apply. */
  private async order<T>(run: () => T): Promise<T> {
    const slow = this.faults.slowNextOrderMs;
    const drop = this.faults.dropAfterNextOrder;
    this.faults.slowNextOrderMs = 0;
    this.faults.dropAfterNextOrder = false;
    const outcome = this.answer(true, run).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    const settled = await outcome;
    if (slow > 0) await sleep(this.clock, slow);
    if (drop) {
      this.drop();
      throw new LinkError("closed");
    }
    if (this.closed) throw new LinkError("closed");
    if ("error" in settled) throw settled.error;
    return settled.value;
  }

  /**
   * The request reaches the server at once and is applied; the answer then takes `delayMs` to
   * come back, the worst case for a client that times out: the operation happened, the client
   * does not know. Only an operation id makes the retry safe.
   */
  private async answer<T>(changes: boolean, run: () => T): Promise<T> {
    if (this.closed) throw new LinkError("closed");
    let outcome: { value: T } | { error: unknown };
    if (changes && this.faults.takeRejection())
      outcome = { error: connectorErrors.rejected("other", "The trading server rejected the request. Try again later.") };
    else {
      try {
        outcome = { value: run() };
      } catch (error) {
        outcome = { error };
      }
    }
    try {
      // The answer waits for the write, which does not wait out the clockwork's gathering.
      await this.durable({ now: true });
    } catch {
      // Not written: as if the server went down before answering (a retry with the same id is safe).
      throw new LinkError("closed");
    }
    if (this.faults.delayMs > 0) await sleep(this.clock, this.faults.delayMs);
    if (this.closed) throw new LinkError("closed");
    if ("value" in outcome) return outcome.value;
    if (outcome.error instanceof ConnectorError) {
      if (changes) this.engine.recordRefusal(outcome.error.message);
      throw new NativeError(this.codec.error.encode(outcome.error));
    }
    throw outcome.error;
  }

  private guarded(run: () => void): void {
    try {
      run();
    } catch (error) {
      this.onFault(error);
    }
  }

  private packet(tx: Transaction) {
    return { sequence: tx.sequence, event: this.codec.event.encode(tx.events) };
  }

  /**
   * Called inside the operation that recorded `tx`: a failure here must not fail that operation
   * (it is done) nor escape into the event loop. The client loses its connection (it catches up
   * when it comes back) and the server's supervisor hears of the failure.
   */
  private push(tx: Transaction): void {
    if (this.closed) return;
    let packet: { sequence: number; event: N["event"] };
    try {
      packet = this.packet(tx);
    } catch (error) {
      this.drop();
      this.onFault(error);
      return;
    }
    const deliver = () => {
      if (!this.closed) this.guarded(() => this.handlers.onPacket(packet));
    };
    // After the change is written (at once without a store), in order.
    void this.durable().then(
      () => {
        deliver();
        if (this.faults.duplicateEvents) deliver();
      },
      () => {},
    );
  }
}
