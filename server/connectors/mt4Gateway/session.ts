/**
 * One MT4 gateway session as a WireSession: a manager login that yields a session token, requests
 * on one connection and the pumping stream (chunked NDJSON, numbered) on the other, the server's
 * zone read at login and at every ping (~20 s), and MT4's units converted at the edge (volume
 * lots × 100 on the wire, format.ts). An expired session (401), a `gap` line or a lost connection
 * ends it. One idea, at length: each WireSession operation as the gateway's (docs/mt4-gateway.md).
 */
import type { Client } from "undici";
import type { JournalFilter, PasswordKind } from "../../../core/trading/index.ts";
import type { Clock } from "../clock.ts";
import { ConnectorError, connectorErrors } from "../errors.ts";
import {
  isMarketTrade,
  isPendingOrder,
  MT4_CMD,
  MT4_RET,
  type Mt4Event,
  type Mt4Native,
  type Mt4PendingTransaction,
  type Mt4TradeRecord,
  type Mt4TradeTransaction,
  type Mt4UserRecord,
} from "../mt4/native.ts";
import { OPERATION_TAG } from "../operationOnce.ts";
import { networkError } from "../transport/client.ts";
import { InFlight, requestJson, SessionTimers } from "../transport/requests.ts";
import { LinkError, NativeError, type PacketBatch, type WireCredentials, type WireHandlers, type WireSession } from "../wire/wire.ts";
import { CLIENT_FLAGS_HIDETICKS, fromWire, MT4_GATEWAY_RET, MT4_TT, toWire, type PumpLine } from "./format.ts";
import type { Mt4OrderReads } from "./pendingOnce.ts";
import { pumpTicks } from "./quotes.ts";
import type { Mt4GatewayTransport } from "./transport.ts";

export const MT4_GATEWAY_PING_MS = 20_000;
const PAGE = 1000;
/** How far back a money operation is looked for before it is sent again. */
const TAG_LOOKBACK_SECONDS = 31 * 24 * 3600;

/** Login refusals in a dealer's words. */
function loginError(ret: number): ConnectorError {
  if (ret === MT4_GATEWAY_RET.notEnoughRights)
    return new ConnectorError(
      "credentialsRefused",
      "The trading server refused the manager: it lacks the rights Toolbox needs (MT4 RET_NOT_ENOUGH_RIGHTS). In MT4 Administrator, give this manager the rights for accounts, trades and balance operations.",
    );
  if (ret === MT4_GATEWAY_RET.securitySession)
    return new ConnectorError(
      "credentialsRefused",
      "The trading server refused the manager login from this address: the IP is not allowed for this manager (MT4 RET_SECURITY_SESSION). Add Toolbox's address to the manager's IP filter in MT4 Administrator.",
    );
  if (ret === MT4_GATEWAY_RET.tooFrequent)
    return connectorErrors.unreachable("The gateway is refusing logins for now (MT4 RET_TOO_FREQUENT); Toolbox will try again shortly.");
  if (ret === MT4_GATEWAY_RET.badAccountInfo || ret === MT4_GATEWAY_RET.invalidData) return connectorErrors.credentialsRefused();
  return connectorErrors.unreachable(`The gateway refused the login (MT4 return code ${ret}).`);
}

type Answer = Record<string, unknown> & { ret: number; error?: string };

export class Mt4GatewaySession implements WireSession<Mt4Native> {
  openedAtSequence = 0;
  private token: string | null = null;
  private closed = false;
  private receivedTo = 0;
  private readonly inFlight = new InFlight();
  private readonly timers: SessionTimers;
  private readonly streamWaiters = new Set<() => void>();

  constructor(
    private readonly transport: Mt4GatewayTransport,
    private readonly requests: Client,
    private readonly stream: Client,
    private readonly handlers: WireHandlers<Mt4Event>,
  ) {
    this.timers = new SessionTimers(transport.options.clock);
    for (const client of [requests, stream]) {
      client.on("disconnect", () => this.lost());
      client.on("connectionError", () => this.lost());
    }
  }

  private get clock(): Clock {
    return this.transport.options.clock;
  }

  async handshake(credentials: WireCredentials): Promise<void> {
    const login = await this.raw("/api/Login", { login: Number(credentials.login), password: credentials.password });
    if (login.ret !== MT4_GATEWAY_RET.ok || typeof login.token !== "string") throw loginError(login.ret);
    this.token = login.token;
    await this.readZone();
    this.openedAtSequence = await this.openStream();
    this.receivedTo = this.openedAtSequence;
    // The ping reads the zone: a daylight-saving switch inside a session is followed within ~20 s.
    this.timers.every(this.transport.options.pingIntervalMs ?? MT4_GATEWAY_PING_MS, () => this.readZone());
  }

  /** The server's offset from UTC now: its zone, plus an hour while the daylight correction is on. */
  private async readZone(): Promise<void> {
    const common = (await this.call("/api/CfgRequestCommon")) as { timezone: number; daylightcorrection: number };
    this.transport.timeZoneOffsetMinutes = Number(common.timezone) + (Number(common.daylightcorrection) ? 60 : 0);
  }

  close(): void {
    this.shutDown(true);
  }

  private shutDown(logout: boolean): void {
    if (this.closed) return;
    this.closed = true;
    this.timers.stop();
    for (const wake of this.streamWaiters) wake();
    const token = this.token;
    const requests = this.requests;
    if (logout && token)
      void requests
        .request({ path: "/api/Logout", method: "POST", headers: { authorization: `Bearer ${token}` } })
        .then(
          (r) => r.body.dump(),
          () => undefined,
        )
        .finally(() => void requests.close().catch(() => undefined));
    else void requests.close().catch(() => undefined);
    void this.stream.destroy().catch(() => undefined);
  }

  /** A connection went away under the session, or the gateway forgot it: the client must log in again. */
  private lost(): void {
    if (this.closed) return;
    const wasUp = this.token !== null;
    this.shutDown(false);
    void this.requests.destroy().catch(() => undefined);
    if (wasUp) this.handlers.onClose();
  }

  /** Opens the pumping stream; resolves with the sequence it starts after. */
  private async openStream(): Promise<number> {
    let response;
    try {
      response = await this.stream.request({
        path: `/api/Pumping?flags=${CLIENT_FLAGS_HIDETICKS}`,
        method: "GET",
        headers: { authorization: `Bearer ${this.token ?? ""}` },
      });
    } catch (error) {
      throw networkError(error, true);
    }
    if (response.statusCode !== 200) {
      await response.body.dump().catch(() => undefined);
      throw new LinkError("unreachable");
    }
    const body = response.body;
    body.setEncoding("utf8");
    return new Promise<number>((resolve, reject) => {
      let started = false;
      let pending = "";
      body.on("data", (chunk: string) => {
        pending += chunk;
        for (let end = pending.indexOf("\n"); end >= 0; end = pending.indexOf("\n")) {
          const text = pending.slice(0, end);
          pending = pending.slice(end + 1);
          if (text.trim() === "") continue;
          let line: PumpLine;
          try {
            line = JSON.parse(text) as PumpLine;
          } catch {
            body.destroy();
            return;
          }
          if (!started) {
            if (line.type !== "start") {
              body.destroy();
              return;
            }
            started = true;
            resolve(line.sequence);
            continue;
          }
          this.onLine(line);
        }
      });
      const ended = () => {
        if (!started) reject(new LinkError("unreachable"));
        this.lost();
      };
      body.on("end", ended);
      body.on("error", ended);
      body.on("close", ended);
    });
  }

  private onLine(line: PumpLine): void {
    if (line.type === "gap") return this.lost();
    if (line.type !== "event" || this.closed) return;
    // A repeated message (same sequence again) is dropped here; the link drops any it still sees.
    if (line.sequence <= this.receivedTo) return;
    this.receivedTo = line.sequence;
    this.handlers.onPacket({ sequence: line.sequence, event: untaggedEvent(fromWire.event(line.event)) });
    for (const wake of this.streamWaiters) wake();
  }

  async sync(waitForRequests: boolean): Promise<void> {
    if (waitForRequests) await this.inFlight.settle();
    if (this.closed || this.inFlight.size > 0) return;
    let latest: number;
    try {
      latest = (await this.feed(Number.MAX_SAFE_INTEGER, 0)).latestSequence;
    } catch {
      return;
    }
    // The stream runs on the network, not on the test's clock: wait (a little, in real time) for it to catch up.
    const deadline = Date.now() + 2_000;
    while (!this.closed && this.receivedTo < latest && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.streamWaiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, 50);
        this.streamWaiters.add(wake);
      });
    }
  }

  // ---- WireSession ----

  /** Live quotes: a pumping connection of their own, with ticks (quotes.ts). */
  quoteStream(onTicks: (ticks: readonly Mt4Native["quote"][]) => void, symbols: readonly string[] | null = null): () => void {
    const { url, ca, targets } = this.transport.options;
    return pumpTicks({ url, tls: { ca, targets }, token: this.token ?? "", clock: this.clock, alive: () => !this.closed, symbols }, onTicks);
  }

  async serverTime() {
    return ((await this.call("/api/ServerTime")) as { time: number }).time;
  }

  async listAccounts(after: number | null, limit: number, groupMask: string | null) {
    return ((await this.call("/api/UsersRequest", { after, limit: Math.min(limit, PAGE), group: groupMask })) as { users: Mt4UserRecord[] }).users;
  }

  async getAccount(login: number) {
    const [user] = ((await this.call("/api/UserRecordsRequest", { logins: [login] })) as { users: Mt4UserRecord[] }).users;
    if (!user) throw new NativeError({ code: MT4_RET.notFound, message: `Account ${login} was not found on the trading server.` });
    return user;
  }

  async createAccount(request: Mt4Native["newAccount"]) {
    return ((await this.call("/api/UserRecordNew", request)) as { user: Mt4UserRecord }).user;
  }

  async updateAccount(login: number, patch: Mt4Native["accountPatch"]) {
    return ((await this.call("/api/UserRecordUpdate", { ...patch, login })) as { user: Mt4UserRecord }).user;
  }

  async setPassword(login: number, password: string, kind: PasswordKind) {
    await this.call("/api/UserPasswordSet", { login, password, change_investor: kind === "investor" ? 1 : 0 });
  }

  async listGroups() {
    return ((await this.call("/api/CfgRequestGroup")) as { groups: Mt4Native["group"][] }).groups;
  }

  async listSymbols() {
    return ((await this.call("/api/CfgRequestSymbol")) as { symbols: Mt4Native["symbol"][] }).symbols.map(fromWire.symbol);
  }

  /** The Manager API's CfgUpdateGroup / CfgUpdateSymbol: the whole record of that name (configuration writes). */
  async updateGroup(name: string, group: Mt4Native["group"]) {
    return ((await this.call("/api/CfgUpdateGroup", { group: { ...group, group: name } })) as { group: Mt4Native["group"] }).group;
  }

  async updateSymbol(name: string, symbol: Mt4Native["symbol"]) {
    const answer = (await this.call("/api/CfgUpdateSymbol", { symbol: toWire.symbol({ ...symbol, symbol: name }) })) as { symbol: Mt4Native["symbol"] };
    return fromWire.symbol(answer.symbol);
  }

  /** CfgRequestHoliday; the gateway's CfgUpdateHoliday takes the whole list (it updates and deletes by position). */
  async listHolidays() {
    return ((await this.call("/api/CfgRequestHoliday")) as { holidays: object[] }).holidays;
  }

  async setHolidays(holidays: readonly object[]) {
    return ((await this.call("/api/CfgUpdateHoliday", { holidays })) as { holidays: object[] }).holidays;
  }

  async getQuotes(symbols: readonly string[] | null) {
    return ((await this.call("/api/TickInfoLast", { symbols: symbols === null ? null : [...symbols] })) as { ticks: Mt4Native["quote"][] }).ticks;
  }

  /** TradesRequest holds pending orders beside the positions: only market trades are positions. */
  async openPositions(login: number | null) {
    return (await this.trades("/api/TradesRequest", login === null ? {} : { login })).filter(isMarketTrade);
  }

  async openPositionsOf(logins: readonly number[]) {
    const trades: Mt4TradeRecord[] = [];
    for (let i = 0; i < logins.length; i += PAGE) trades.push(...(await this.trades("/api/TradesRequest", { logins: logins.slice(i, i + PAGE) })));
    return trades.filter(isMarketTrade);
  }

  async history(login: number, from: number, to: number) {
    return (await this.trades("/api/TradesUserHistory", { login, from, to })).map(untagged);
  }

  /** CfgRequestPlugin: the plugins with their parameters (ConPluginParam), as the server has them now. */
  async listPlugins() {
    return ((await this.call("/api/CfgRequestPlugin")) as { plugins: Mt4Native["plugin"][] }).plugins;
  }

  /** CfgUpdatePlugin(ConPlugin, PluginCfg[], total); the gateway answers the plugin as it now is. */
  async updatePlugin(update: Mt4Native["pluginUpdate"]) {
    return ((await this.call("/api/CfgUpdatePlugin", update)) as { plugin: Mt4Native["plugin"] }).plugin;
  }

  async journal(from: number, to: number, filter: JournalFilter, limit: number) {
    return (
      (await this.call("/api/JournalRequest", {
        from,
        to,
        limit,
        ...(filter.levels?.length ? { levels: filter.levels } : {}),
        ...(filter.login ? { login: Number(filter.login) } : {}),
        ...(filter.text ? { filter: filter.text } : {}),
      })) as { records: Mt4Native["journal"][] }
    ).records;
  }

  balance(request: Mt4Native["balanceRequest"]) {
    return this.transport.money.run(request, {
      nowSeconds: () => Math.floor(this.clock.now() / 1000) + this.transport.timeZoneOffsetMinutes * 60,
      lookbackSeconds: TAG_LOOKBACK_SECONDS,
      history: (login, from, to) => this.trades("/api/TradesUserHistory", { login, from, to }),
      apply: async ({ cmd, login, amount, comment }) =>
        ((await this.call("/api/TradeTransaction", { type: MT4_TT.brBalance, cmd, orderby: login, price: amount, comment })) as { order: number }).order,
      account: (login) => this.getAccount(login),
    });
  }

  placeOrder(request: Mt4TradeTransaction) {
    return this.transaction(MT4_TT.brOrderOpen, request);
  }

  modifyPosition(request: Mt4TradeTransaction) {
    return this.transaction(MT4_TT.brOrderModify, request);
  }

  closePosition(request: Mt4TradeTransaction) {
    return this.transaction(MT4_TT.brOrderClose, request);
  }

  /** Waiting pending orders: the records of TradesRequest with cmd 2–5. */
  async pendingOrders(login: number | null) {
    return (await this.trades("/api/TradesRequest", login === null ? {} : { login })).filter(isPendingOrder);
  }

  /**
   * Deleted and expired orders: TradesUserHistory's records with cmd 2–5 (per account; all
   * accounts' read one by one). A filled order is not among them: it became the trade under its ticket.
   */
  async orderHistory(login: number | null, from: number, to: number): Promise<Mt4TradeRecord[]> {
    if (login === null) {
      const all: Mt4TradeRecord[] = [];
      for (let after: number | null = null; ;) {
        const page = await this.listAccounts(after, PAGE, null);
        for (const account of page) all.push(...(await this.orderHistory(account.login, from, to)));
        if (page.length < PAGE) return all;
        after = page[page.length - 1]!.login;
      }
    }
    return (await this.trades("/api/TradesUserHistory", { login, from, to })).filter((r) => isPendingOrder(r) && r.close_time !== 0);
  }

  /** TT_BR_ORDER_OPEN with a pending command: the order waits at `price` until `expiration` (0: none). */
  placePendingOrder(request: Mt4PendingTransaction) {
    return this.transaction(MT4_TT.brOrderOpen, request);
  }

  /**
   * TT_BR_ORDER_MODIFY on a waiting order's ticket: its price, stops and expiration; not sent when
   * the order already stands as asked (pendingOnce.ts). The login only helps the lookup: the
   * gateway gets the ticket alone.
   */
  modifyPendingOrder(request: Mt4PendingTransaction) {
    return this.transport.pendingOnce.modify(request, this.orderReads, () => this.transaction(MT4_TT.brOrderModify, { ...request, login: 0 }));
  }

  /** TT_BR_ORDER_DELETE; not sent when the order's history shows it deleted, expired or filled (pendingOnce.ts). */
  cancelPendingOrder(request: Mt4PendingTransaction) {
    return this.transport.pendingOnce.cancel(request, this.orderReads, () => this.transaction(MT4_TT.brOrderDelete, { ...request, login: 0 }));
  }

  private readonly orderReads: Mt4OrderReads = {
    openRecords: (tickets) => this.trades("/api/TradeRecordsRequest", { orders: tickets }),
    history: (login, from, to) => this.trades("/api/TradesUserHistory", { login, from, to }),
    serverTime: () => this.serverTime(),
  };

  async eventsSince(sequence: number, limit: number): Promise<PacketBatch<Mt4Event>> {
    // The gateway answers at most 1000 a call: read on until `limit` or the end.
    const first = await this.feed(sequence, Math.min(limit, PAGE));
    const packets = [...first.packets];
    let latest = first.latestSequence;
    for (let batch = first; first.complete && packets.length < limit && batch.packets.length === PAGE;) {
      const cursor = packets.at(-1)?.sequence ?? sequence;
      batch = await this.feed(cursor, Math.min(limit - packets.length, PAGE));
      packets.push(...batch.packets);
      latest = batch.latestSequence;
    }
    return { packets, complete: first.complete, latestSequence: latest };
  }

  // ---- helpers ----

  /** A TT_BR_ORDER_* with the gateway's request id; the answer names the transaction it answers, as the in-process shapes do. */
  private async transaction<T extends Mt4TradeTransaction | Mt4PendingTransaction>(type: number, request: T) {
    const { type: _kind, deviation, ...fields } = toWire.transaction(request);
    const answer = (await this.call("/api/TradeTransaction", { ...fields, type, ie_deviation: deviation })) as {
      order: number;
      price: number;
      volume: number;
      time: number;
    };
    return fromWire.result<{ request_id: string; type: T["type"]; order: number; price: number; volume: number; time: number }>({
      request_id: request.request_id,
      type: request.type,
      order: answer.order,
      price: answer.price,
      volume: answer.volume,
      time: answer.time,
    });
  }

  private async trades(path: string, body: Record<string, unknown>): Promise<Mt4TradeRecord[]> {
    return ((await this.call(path, body)) as { trades: Mt4TradeRecord[] }).trades.map(fromWire.trade);
  }

  private async feed(after: number, limit: number): Promise<PacketBatch<Mt4Event>> {
    const answer = (await this.call("/api/PumpingHistory", { after, limit })) as {
      events: { sequence: number; event: Mt4Event }[];
      complete: number;
      latest: number;
    };
    return {
      packets: answer.events.map((e) => ({ sequence: e.sequence, event: untaggedEvent(fromWire.event(e.event)) })),
      complete: answer.complete === 1,
      latestSequence: answer.latest,
    };
  }

  /** An operation on the session; the answer, or a NativeError with its MT4 return code. */
  private async call(path: string, body: object = {}): Promise<unknown> {
    if (this.closed) throw new LinkError("closed");
    const answer = await this.raw(path, body);
    if (answer.ret === MT4_GATEWAY_RET.tooFrequent)
      throw new NativeError({ code: MT4_RET.brokerBusy, message: "The gateway is limiting requests (MT4 RET_TOO_FREQUENT). Try again in a moment." });
    if (answer.ret !== MT4_GATEWAY_RET.ok) throw new NativeError({ code: answer.ret, message: typeof answer.error === "string" ? answer.error : "" });
    return answer;
  }

  private raw(path: string, body: object): Promise<Answer> {
    return this.inFlight.track(
      requestJson(
        this.requests,
        {
          path,
          method: "POST",
          headers: { "content-type": "application/json", ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) },
          body: JSON.stringify(body),
        },
        {
          established: () => this.token !== null,
          // The gateway no longer knows this session.
          sessionGoneStatus: 401,
          onSessionGone: () => this.lost(),
          parse: JSON.parse,
          isAnswer: (parsed): parsed is Answer => typeof parsed === "object" && parsed !== null && typeof (parsed as { ret?: unknown }).ret === "number",
          notTheVendor: "The server's answer is not the MT4 gateway's: check the address and port.",
        },
      ),
    );
  }
}

/** Records as Toolbox shows them: the operation tag it wrote into a balance comment is its own business. */
function untagged(record: Mt4TradeRecord): Mt4TradeRecord {
  return (record.cmd === MT4_CMD.balance || record.cmd === MT4_CMD.credit) && OPERATION_TAG.test(record.comment)
    ? { ...record, comment: record.comment.replace(OPERATION_TAG, "") }
    : record;
}

function untaggedEvent(event: Mt4Event): Mt4Event {
  return { ...event, pumps: event.pumps.map((p) => (p.type === "trade" ? { ...p, trade: untagged(p.trade) } : p)) };
}
