/**
 * A local MT4 manager gateway (docs/mt4-gateway.md) backed by the simulation engine: HTTPS only,
 * a manager login that yields a session token, JSON endpoints named after the Manager API
 * operations (UserRecordsRequest, UserRecordNew, UserRecordUpdate, TradesRequest,
 * TradesUserHistory, JournalRequest, TradeTransaction with TT_BR_BALANCE and the OP_* commands,
 * market and pending, in orders.ts),
 * MT4's units (volume in lots × 100, times in seconds of server time), MT4 return codes, and the
 * pumping stream as chunked NDJSON with a sequence number to resume from.
 *
 * Every command goes through a SimulatedSession speaking the MT4 native shapes, so the engine's
 * own faults (slow answers, rejections, dropped links, duplicated events) apply as they do in
 * process; this server adds the network's: refused connections, a return code on the login or
 * the next command, and a balance operation applied whose answer is lost with the connection.
 *
 * One idea, at length: the gateway's operations and its stream. The HTTPS plumbing (listening,
 * refused connections, the idle drop, bodies) is server/protocolServers/common/.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { sleep, type TimerHandle } from "../../connectors/clock.ts";
import { CLIENT_FLAGS_HIDETICKS, fromWire, MT4_COMMENT_MAX, MT4_GATEWAY_RET, MT4_TT, toWire, type PumpLine } from "../../connectors/mt4Gateway/format.ts";
import { mt4Codec } from "../../connectors/mt4/codec.ts";
import type { Mt4Error, Mt4Native, Mt4NewUser, Mt4TradeRecord } from "../../connectors/mt4/native.ts";
import { LinkError, NativeError, type WireSession } from "../../connectors/wire/wire.ts";
import { isRecord, readBody, sendJson } from "../common/https.ts";
import { ManagerServer, type ManagerServerOptions } from "../common/managerServer.ts";
import { CommandError, login, ModifyTargets, runOrder, text } from "./orders.ts";
import { pluginCommand } from "./plugins.ts";

export interface Mt4GatewayServerOptions extends ManagerServerOptions {
  /** A request connection silent this long is closed (the pumping stream is exempt: it pings). */
  idleTimeoutMs?: number;
  /** How often the pumping stream sends a ping line (on the simulated server's clock). */
  streamPingMs?: number;
  /**
   * Tell the zone as a server in summer does: standard time, plus a daylight correction of one
   * hour (CfgRequestCommon `daylightcorrection` 1). The offset in force is the same.
   */
  daylightTime?: boolean;
}

export const MT4_GATEWAY_IDLE_MS = 180_000;
export const MT4_GATEWAY_STREAM_PING_MS = 15_000;
/** At most this many records a list answer holds. */
export const MT4_GATEWAY_PAGE_MAX = 1000;
const PUMP_BATCH = 1000;

/** Faults a test (or the simulator's control API) can switch on; the engine's own are on `simulated.faults`. */
export class Mt4GatewayFaults {
  /** The login is answered with this return code (7 RET_NOT_ENOUGH_RIGHTS, 11 RET_SECURITY_SESSION: IP not allowed). */
  authRet: number | null = null;
  /** The next command is answered with this return code, without being run (8 RET_TOO_FREQUENT is answered with HTTP 429). */
  nextRet: number | null = null;
  /** The next balance operation is applied, then its session's connections drop before the answer. */
  dropAfterNextBalance = false;
  /** The next order (TT_BR_ORDER_OPEN, _MODIFY, _CLOSE, _DELETE; market or pending) is applied, then its session's connections drop before the answer. */
  dropAfterNextOrder = false;
  /** The next order is applied at once, then its answer waits this long (a client times out; the order happened). */
  slowNextOrderMs = 0;

  restore(): void {
    this.authRet = null;
    this.nextRet = null;
    this.dropAfterNextBalance = false;
    this.dropAfterNextOrder = false;
    this.slowNextOrderMs = 0;
  }
}

/** The leading number of a code given as text ("7 not enough rights" → 7); null for none. */
export function retFromText(text: string | undefined): number | null {
  const match = /^\s*(\d+)/.exec(text ?? "");
  return match?.[1] ? Number(match[1]) : null;
}

interface GatewaySession {
  token: string;
  session: WireSession<Mt4Native>;
  sockets: Set<Socket>;
  streams: Set<(line: PumpLine) => void>;
  closed: boolean;
}

const DROPPED = Symbol("dropped");

export class Mt4GatewayServer extends ManagerServer<Mt4GatewayServerOptions> {
  readonly faults = new Mt4GatewayFaults();
  private readonly sessions = new Map<string, GatewaySession>();
  private readonly codec;
  private nextOperation = 1;
  private modifyTargets = new ModifyTargets();
  private memories = 0;
  /**
   * CfgRequestCommon tells a daylight correction on top of the simulated zone: the server's clock
   * moved an hour ahead. Tests flip it to check a connector follows inside a session; the
   * simulated clock itself keeps its offset.
   */
  daylightSwitched = false;

  constructor(options: Mt4GatewayServerOptions) {
    super(options, { name: "The MT4 gateway", platform: "MT4", idleTimeoutMs: options.idleTimeoutMs ?? MT4_GATEWAY_IDLE_MS });
    this.codec = mt4Codec({ timeZoneOffsetMinutes: options.simulated.timeZoneOffsetMinutes });
  }

  /**
   * The gateway loses its memory of request ids (reinstalled, or restarted without persistence):
   * every id is new to it from now on, as the docs' limits describe; the trade server keeps its state.
   */
  forgetRequestIds(): void {
    this.memories += 1;
    this.modifyTargets = new ModifyTargets(undefined, `~${this.memories}`);
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Drops every connection and session now (clients must log in again). */
  override dropConnections(): void {
    for (const session of [...this.sessions.values()]) this.endSession(session);
    super.dropConnections();
  }

  private endSession(session: GatewaySession): void {
    if (session.closed) return;
    session.closed = true;
    this.sessions.delete(session.token);
    session.session.close();
    for (const socket of session.sockets) socket.destroy();
  }

  protected override async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "https://mt4.invalid");
    const path = url.pathname;
    let body: Record<string, unknown>;
    try {
      body = jsonObject(await readBody(req, 4_000_000));
    } catch {
      return send(res, 400, { ret: MT4_GATEWAY_RET.invalidData, error: "The request body is not a JSON object." });
    }
    try {
      if (path === "/api/Login") {
        if (req.method !== "POST") throw new CommandError(MT4_GATEWAY_RET.invalidData, "Login is a POST.");
        return send(res, 200, await this.login(body, req.socket));
      }
      const session = this.sessionOf(req);
      if (!session) return send(res, 401, { ret: MT4_GATEWAY_RET.noConnect, error: "No session: log in again." });
      session.sockets.add(req.socket);
      const forced = this.faults.nextRet;
      if (forced !== null) {
        this.faults.nextRet = null;
        return send(res, forced === MT4_GATEWAY_RET.tooFrequent ? 429 : 200, { ret: forced, error: `Return code ${forced}.` });
      }
      if (path === "/api/Pumping") return await this.pump(session, url, req, res);
      const answer = await this.command(path, body, session);
      if (answer === DROPPED) return;
      send(res, 200, { ret: MT4_GATEWAY_RET.ok, ...answer });
    } catch (error) {
      if (error instanceof CommandError) return send(res, 200, { ret: error.ret, error: error.message });
      if (error instanceof NativeError) {
        const native = error.native as Mt4Error;
        return send(res, 200, { ret: native.code, error: native.message });
      }
      if (error instanceof LinkError) {
        // The simulated server dropped this client (a fault, or it stopped): so does the network.
        req.socket.destroy();
        return;
      }
      send(res, 200, { ret: MT4_GATEWAY_RET.error, error: error instanceof Error ? error.message : String(error) });
    }
  }

  private sessionOf(req: IncomingMessage): GatewaySession | undefined {
    const header = req.headers.authorization ?? "";
    const token = /^Bearer ([0-9a-f]{64})$/.exec(header)?.[1];
    return token ? this.sessions.get(token) : undefined;
  }

  private async login(body: Record<string, unknown>, socket: Socket): Promise<Record<string, unknown>> {
    const manager = this.manager;
    const login = typeof body.login === "number" ? String(body.login) : "";
    // A wrong login and a wrong password look the same from outside.
    if (login !== manager.login || body.password !== manager.password)
      return { ret: MT4_GATEWAY_RET.badAccountInfo, error: "Invalid manager login or password." };
    if (this.faults.authRet !== null) return { ret: this.faults.authRet, error: `Return code ${this.faults.authRet}.` };
    const token = randomBytes(32).toString("hex");
    const entry: GatewaySession = { token, session: null as never, sockets: new Set([socket]), streams: new Set(), closed: false };
    entry.session = await this.simulated.transport(this.codec).open(manager, {
      onPacket: (packet) => {
        for (const write of entry.streams) write({ type: "event", sequence: packet.sequence, event: toWire.event(packet.event) });
      },
      onClose: () => this.endSession(entry),
    });
    this.sessions.set(token, entry);
    return { ret: MT4_GATEWAY_RET.ok, token };
  }

  /**
   * The pumping stream: a `start` line with the sequence it starts after, the events after
   * `after` when asked (or a `gap` line when they are no longer held), then live events and pings.
   */
  private async pump(session: GatewaySession, url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const flagsText = url.searchParams.get("flags");
    const flags = flagsText === null ? 0 : Number(flagsText);
    if (!Number.isSafeInteger(flags) || flags < 0) throw new CommandError(MT4_GATEWAY_RET.invalidData, "flags is PumpingSwitchEx's CLIENT_FLAGS_* mask.");
    const after = url.searchParams.get("after");
    const from = after === null ? null : Number(after);
    if (from !== null && (!Number.isSafeInteger(from) || from < 0 || from > (await session.session.eventsSince(Number.MAX_SAFE_INTEGER, 0)).latestSequence))
      throw new CommandError(MT4_GATEWAY_RET.invalidData, "after is a sequence number this gateway has reached.");
    const buffered: PumpLine[] = [];
    let live = false;
    const write = (line: PumpLine) => {
      if (!live) buffered.push(line);
      else if (!res.writableEnded) res.write(`${JSON.stringify(line)}\n`);
    };
    session.streams.add(write);
    req.socket.setTimeout(0);
    const clock = this.simulated.clock;
    let ping: TimerHandle | null = null;
    const schedulePing = () => {
      ping = clock.setTimeout(() => {
        write({ type: "ping", time: Math.floor(clock.now() / 1000) });
        schedulePing();
      }, this.options.streamPingMs ?? MT4_GATEWAY_STREAM_PING_MS);
    };
    // PUMP_UPDATE_BIDASK unless hidden: the symbols that ticked, the latest of each (SymbolInfoUpdated).
    const stopTicks =
      flags & CLIENT_FLAGS_HIDETICKS
        ? () => undefined
        : (session.session.quoteStream?.((ticks) => {
            const latest = new Map(ticks.map((t) => [t.symbol, t]));
            write({ type: "bidask", ticks: [...latest.values()] });
          }) ?? (() => undefined));
    res.on("close", () => {
      session.streams.delete(write);
      stopTicks();
      if (ping) clock.clearTimeout(ping);
    });
    res.writeHead(200, { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store" });
    let sent = (await session.session.eventsSince(Number.MAX_SAFE_INTEGER, 0)).latestSequence;
    if (from === null) res.write(`${JSON.stringify({ type: "start", sequence: sent } satisfies PumpLine)}\n`);
    else {
      res.write(`${JSON.stringify({ type: "start", sequence: from } satisfies PumpLine)}\n`);
      for (let cursor = from; ;) {
        const batch = await session.session.eventsSince(cursor, PUMP_BATCH);
        if (!batch.complete) {
          res.end(`${JSON.stringify({ type: "gap", sequence: cursor } satisfies PumpLine)}\n`);
          return;
        }
        for (const packet of batch.packets) {
          res.write(`${JSON.stringify({ type: "event", sequence: packet.sequence, event: toWire.event(packet.event) } satisfies PumpLine)}\n`);
          cursor = packet.sequence;
        }
        sent = Math.max(sent, cursor);
        if (batch.packets.length < PUMP_BATCH) break;
      }
    }
    live = true;
    // Events that came while catching up, less those already written.
    for (const line of buffered.splice(0)) if (line.type !== "event" || line.sequence > sent) write(line);
    schedulePing();
  }

  private async command(path: string, body: Record<string, unknown>, entry: GatewaySession): Promise<Record<string, unknown> | typeof DROPPED> {
    const session = entry.session;
    switch (path) {
      case "/api/Ping":
        return {};
      case "/api/Logout":
        queueMicrotask(() => this.endSession(entry));
        return {};
      case "/api/ServerTime":
        return { time: await session.serverTime() };
      case "/api/CfgRequestCommon":
        // A daylight-saving switch: the clock in force moved an hour ahead (tests flip it mid-session).
        if (this.daylightSwitched) return { timezone: this.simulated.timeZoneOffsetMinutes, daylightcorrection: 1 };
        // The simulated server keeps one offset in force; a real one in summer tells its daylight hour apart.
        return this.options.daylightTime
          ? { timezone: this.simulated.timeZoneOffsetMinutes - 60, daylightcorrection: 1 }
          : { timezone: this.simulated.timeZoneOffsetMinutes, daylightcorrection: 0 };
      case "/api/UsersRequest": {
        const limit = count(body.limit);
        const after = body.after === null || body.after === undefined ? null : login(body.after);
        const group = typeof body.group === "string" && body.group !== "" && body.group !== "*" ? body.group : null;
        return { users: await session.listAccounts(after, limit, group) };
      }
      case "/api/UserRecordsRequest":
        return { users: await this.users(session, logins(body.logins)) };
      case "/api/UserRecordNew":
        return { user: await session.createAccount(body as unknown as Mt4NewUser) };
      case "/api/UserRecordUpdate": {
        const { login: who, ...patch } = body;
        return { user: await session.updateAccount(login(who), patch) };
      }
      case "/api/UserPasswordSet":
        await session.setPassword(login(body.login), text(body.password), body.change_investor === 1 ? "investor" : "main");
        return {};
      case "/api/CfgRequestGroup":
        return { groups: await session.listGroups() };
      case "/api/CfgRequestSymbol":
        return { symbols: (await session.listSymbols()).map(toWire.symbol) };
      case "/api/CfgUpdateGroup": {
        const group = record(body.group, "group");
        return { group: await session.updateGroup(text(group.group), group as unknown as Mt4Native["group"]) };
      }
      case "/api/CfgUpdateSymbol": {
        const symbol = fromWire.symbol(record(body.symbol, "symbol") as unknown as Mt4Native["symbol"]);
        return { symbol: toWire.symbol(await session.updateSymbol(symbol.symbol, symbol)) };
      }
      case "/api/CfgRequestHoliday":
        return { holidays: session.listHolidays ? await session.listHolidays() : [] };
      case "/api/CfgUpdateHoliday": {
        if (!Array.isArray(body.holidays) || !session.setHolidays) throw new CommandError(MT4_GATEWAY_RET.invalidData, "A list of holidays is required.");
        return { holidays: await session.setHolidays(body.holidays.map((h: unknown) => record(h, "holiday"))) };
      }
      case "/api/TickInfoLast":
        return { ticks: await session.getQuotes(Array.isArray(body.symbols) ? body.symbols.map(text) : null) };
      case "/api/TradesRequest":
        return { trades: (await this.openTrades(session, body)).map(toWire.trade) };
      case "/api/TradeRecordsRequest":
        return { trades: (await this.tradeRecords(session, body.orders)).map(toWire.trade) };
      case "/api/TradesUserHistory": {
        const [who, from, to] = [login(body.login), seconds(body.from), seconds(body.to)];
        return { trades: [...(await session.history(who, from, to)), ...this.finishedOrders(who, from, to)].map(toWire.trade) };
      }
      case "/api/JournalRequest": {
        const levels = Array.isArray(body.levels) ? (body.levels.map(text) as never[]) : [];
        const records = await session.journal(
          seconds(body.from),
          seconds(body.to),
          {
            ...(levels.length > 0 ? { levels } : {}),
            ...(body.login ? { login: String(login(body.login)) } : {}),
            ...(typeof body.filter === "string" && body.filter ? { text: body.filter } : {}),
          },
          Math.min(count(body.limit), 10_000),
        );
        return { records };
      }
      case "/api/TradeTransaction":
        return this.transaction(body, entry);
      case "/api/PumpingHistory": {
        const batch = await session.eventsSince(count(body.after, true), Math.min(count(body.limit, true), PUMP_BATCH));
        return {
          events: batch.packets.map((p) => ({ sequence: p.sequence, event: toWire.event(p.event) })),
          complete: batch.complete ? 1 : 0,
          latest: batch.latestSequence,
        };
      }
      default: {
        const plugins = await pluginCommand(path, body, session);
        if (plugins) return plugins;
        throw new CommandError(MT4_GATEWAY_RET.invalidData, `Unknown operation ${path}.`);
      }
    }
  }

  /** TradeTransaction: TT_BR_BALANCE without any operation id, as MT4 has it; TT_BR_ORDER_* with the gateway's request id. */
  private async transaction(body: Record<string, unknown>, entry: GatewaySession): Promise<Record<string, unknown> | typeof DROPPED> {
    const session = entry.session;
    const type = body.type;
    if (type === MT4_TT.brBalance) {
      const cmd = body.cmd;
      if (cmd !== 6 && cmd !== 7) throw new CommandError(MT4_GATEWAY_RET.invalidData, "TT_BR_BALANCE takes cmd OP_BALANCE (6) or OP_CREDIT (7).");
      const comment = text(body.comment);
      if (comment.length > MT4_COMMENT_MAX) throw new CommandError(MT4_GATEWAY_RET.invalidData, `A comment holds at most ${MT4_COMMENT_MAX} characters.`);
      const amount = body.price;
      if (typeof amount !== "number" || !Number.isFinite(amount) || amount === 0 || Math.round(amount * 100) !== amount * 100)
        throw new CommandError(MT4_GATEWAY_RET.invalidData, "The amount (price) must be a non-zero number with at most 2 decimals.");
      // The engine wants an id; each call gets a fresh one, so a repeated call moves money again, as on a real server.
      const result = await session.balance({ request_id: `gateway-${this.nextOperation++}`, login: login(body.orderby), cmd, amount, comment });
      if (this.faults.dropAfterNextBalance) {
        this.faults.dropAfterNextBalance = false;
        this.endSession(entry);
        return DROPPED;
      }
      return { order: result.order };
    }
    const answer = await runOrder(session, body, this.modifyTargets);
    const slow = this.faults.slowNextOrderMs;
    if (slow > 0) {
      this.faults.slowNextOrderMs = 0;
      await sleep(this.simulated.clock, slow);
    }
    if (this.faults.dropAfterNextOrder) {
      this.faults.dropAfterNextOrder = false;
      this.endSession(entry);
      return DROPPED;
    }
    return answer;
  }

  /** TradesRequest: every open trade record, market trades and waiting pending orders (cmd 2–5) alike. */
  private async openTrades(session: WireSession<Mt4Native>, body: Record<string, unknown>): Promise<Mt4TradeRecord[]> {
    if (body.logins !== undefined) {
      const wanted = logins(body.logins);
      const among = new Set(wanted);
      return [...(await session.openPositionsOf(wanted)), ...(await session.pendingOrders(null)).filter((o) => among.has(o.login))];
    }
    const who = body.login === undefined ? null : login(body.login);
    return [...(await session.openPositions(who)), ...(await session.pendingOrders(who))];
  }

  /**
   * TradeRecordsRequest: the open records (trades and waiting orders) of these tickets; others are
   * left out. (The Manager API's call reads tickets from the server's trade base; whether it also
   * answers closed ones is not published, so this gateway does not, and Toolbox looks those up in
   * TradesUserHistory.)
   */
  private async tradeRecords(session: WireSession<Mt4Native>, value: unknown): Promise<Mt4TradeRecord[]> {
    if (!Array.isArray(value) || value.length === 0 || value.length > MT4_GATEWAY_PAGE_MAX)
      throw new CommandError(MT4_GATEWAY_RET.invalidData, `orders is a list of 1 to ${MT4_GATEWAY_PAGE_MAX} tickets.`);
    const wanted = new Set(value.map(login));
    return (await this.openTrades(session, {})).filter((t) => wanted.has(t.order));
  }

  /**
   * Pending orders deleted or expired within [from, to], as a real MT4 history lists them: the
   * order's record (cmd 2–5) closed at the moment it left, no profit. A filled order is not among
   * them: it became the market trade under the same ticket, listed once that closes.
   */
  private finishedOrders(who: number, from: number, to: number): Mt4TradeRecord[] {
    const time = this.codec.time;
    return this.simulated.engine
      .orderHistory(String(who), time.decode(from), time.decode(to))
      .filter((f) => f.state === "cancelled" || f.state === "expired")
      .map((f) => ({ ...this.codec.pendingOrder.encode(f.order), close_time: time.encode(f.time), close_price: f.order.price }));
  }

  /** UserRecordsRequest: the records of these logins; logins the server does not know are left out. */
  private async users(session: WireSession<Mt4Native>, wanted: number[]) {
    const users: Mt4Native["account"][] = [];
    for (const one of wanted) {
      try {
        users.push(await session.getAccount(one));
      } catch (error) {
        if (!(error instanceof NativeError) || (error.native as Mt4Error).code !== 404) throw error;
      }
    }
    return users;
  }
}

function send(res: ServerResponse, status: number, body: object): void {
  sendJson(res, status, JSON.stringify(body));
}

/** A request body: a JSON object, or none. */
function jsonObject(text: string): Record<string, unknown> {
  if (text === "") return {};
  const parsed: unknown = JSON.parse(text);
  if (!isRecord(parsed)) throw new Error("Not an object");
  return parsed;
}

/** A configuration record in the body (ConGroup, ConSymbol). */
function record(value: unknown, what: string): Record<string, unknown> {
  if (!isRecord(value)) throw new CommandError(MT4_GATEWAY_RET.invalidData, `A ${what} record is required.`);
  return value;
}

function logins(value: unknown): number[] {
  if (!Array.isArray(value) || value.length > MT4_GATEWAY_PAGE_MAX)
    throw new CommandError(MT4_GATEWAY_RET.invalidData, `logins is a list of at most ${MT4_GATEWAY_PAGE_MAX}.`);
  return value.map(login);
}

function seconds(value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) throw new CommandError(MT4_GATEWAY_RET.invalidData, "Times are whole seconds of server time.");
  return value;
}

function count(value: unknown, zeroAllowed = false): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < (zeroAllowed ? 0 : 1))
    throw new CommandError(MT4_GATEWAY_RET.invalidData, "A count is a positive integer.");
  return zeroAllowed ? value : Math.min(value, MT4_GATEWAY_PAGE_MAX);
}
