/**
 * A local MT5 Web API server (docs/connectors.md#vendor-mt5) backed by the simulation engine: HTTPS only, the
 * `/api/auth/start` + `/api/auth/answer` MD5 challenge, a session tied to the TLS connection that
 * authenticated it, the `{"retcode","answer"}` envelope with numbers as strings, `get_total` /
 * `get_page` paging of at most 100, server-time seconds, `/api/trade/balance` without any
 * operation id, dealer requests and their results, and the 180 s idle drop. What the vendor's API
 * lacks and Toolbox needs (the server journal, a numbered event feed) is served under
 * `/api/toolbox/*`, as a server plugin would; see docs/connectors.md and decision 0063.
 *
 * Every command goes through a SimulatedSession speaking the MT5 native shapes, so the engine's
 * own faults (slow answers, rejections, dropped links) apply as they do in process; this server
 * adds the network's: refused connections, a vendor retcode on the handshake or the next
 * command, and a money operation applied whose answer is lost with the connection.
 *
 * One idea, at length: the vendor's commands. The HTTPS plumbing (listening, refused connections,
 * the idle drop, bodies) is server/protocolServers/common/; reading parameters is ./params.ts and
 * the dealer queue ./dealer.ts, the order commands ./orders.ts.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { challengeAnswer, passwordHash, randomChallenge, sameAnswer } from "../../connectors/mt5WebApi/auth.ts";
import { readJson, serverTimeText, writeEnvelope } from "../../connectors/mt5WebApi/format.ts";
import { mt5Codec } from "../../connectors/mt5/codec.ts";
import { MT5_RETCODE, type Mt5Deal, type Mt5User, type Mt5Native } from "../../connectors/mt5/native.ts";
import { sleep } from "../../connectors/clock.ts";
import { LinkError, NativeError, type WireSession } from "../../connectors/wire/wire.ts";
import { isRecord, readBody, sendJson as send } from "../common/https.ts";
import { ManagerServer, type ManagerServerOptions } from "../common/managerServer.ts";
import { DealerQueue } from "./dealer.ts";
import { OrderCommands } from "./orders.ts";
import { at, CommandError, list, login, number, page, text } from "./params.ts";
import { pluginCommand } from "./plugins.ts";

export interface Mt5WebApiServerOptions extends ManagerServerOptions {
  /** The vendor drops a connection after 180 s without traffic. */
  idleTimeoutMs?: number;
  /**
   * Serve Toolbox's own event feed and journal (`/api/toolbox/*`), as a server with Toolbox's MT5
   * plugin would; true by default. False answers them as a plain MT5 Web API does (13 Not found),
   * and the connector falls back to polling the vendor's own commands (decision 0063).
   */
  toolboxPlugin?: boolean;
  /** How long a challenge stays answerable: 10 s at the vendor. */
  handshakeWindowMs?: number;
}

export const MT5_WEB_API_IDLE_MS = 180_000;
const VERSION_ACCESS = "4321";
const VERSION_TRADE = "4321";

/** The vendor's retcodes this server answers with, beyond the native codec's. */
export const MT5_WEB_API_RETCODE = {
  noPermissions: "8 Not enough permissions",
  ipBlocked: "1012 Manager IP blocked",
  authFailed: "1002 Invalid account",
  frequent: "12 Too frequent requests",
} as const;

interface Connection {
  socket: Socket;
  challenge: { login: string; srvRand: string; at: number } | null;
  session: WireSession<Mt5Native> | null;
}

/** Faults a test (or the simulator's control API) can switch on; the engine's own are on `simulated.faults`. */
export class Mt5WebApiFaults {
  /** The handshake is answered with this retcode (e.g. 8 no permissions, 1012 IP not whitelisted). */
  authRetcode: string | null = null;
  /** The next command is answered with this retcode, without being run. */
  nextRetcode: string | null = null;
  /** The next money operation is applied, then the connection drops before its answer. */
  dropAfterNextBalance = false;
  /** The next dealer request (an order, a stops change, a close) is run, then the connection drops before its answer. */
  dropAfterNextOrder = false;
  /** The next dealer request is run at once, then its answer waits this long (a client times out; the order happened). */
  slowNextOrderMs = 0;

  restore(): void {
    this.authRetcode = null;
    this.nextRetcode = null;
    this.dropAfterNextBalance = false;
    this.dropAfterNextOrder = false;
    this.slowNextOrderMs = 0;
  }
}

export class Mt5WebApiServer extends ManagerServer<Mt5WebApiServerOptions> {
  readonly faults = new Mt5WebApiFaults();
  /**
   * `/api/time/get`'s DaylightState: 1 tells clients the server's clock moved an hour ahead (a
   * daylight-saving switch). Tests flip it to check a connector follows inside a session; the
   * simulated clock itself keeps its offset.
   */
  daylightState: 0 | 1 = 0;
  private readonly connections = new Map<Socket, Connection>();
  private readonly codec;
  private readonly dealer = new DealerQueue();
  private readonly orders: OrderCommands;
  private nextOperation = 1;

  constructor(options: Mt5WebApiServerOptions) {
    super(options, { name: "The MT5 Web API server", platform: "MT5", idleTimeoutMs: options.idleTimeoutMs ?? MT5_WEB_API_IDLE_MS });
    this.codec = mt5Codec({ timeZoneOffsetMinutes: options.simulated.timeZoneOffsetMinutes });
    this.orders = new OrderCommands(options.simulated);
  }

  /** Each connection holds its own handshake and session: the vendor ties a session to the connection that authenticated it. */
  protected override connected(socket: Socket): void {
    const connection: Connection = { socket, challenge: null, session: null };
    this.connections.set(socket, connection);
    socket.on("close", () => {
      this.connections.delete(socket);
      connection.session?.close();
      connection.session = null;
    });
  }

  protected override async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const connection = this.connections.get(req.socket);
    const url = new URL(req.url ?? "/", "https://mt5.invalid");
    let body: unknown = undefined;
    try {
      const text = await readBody(req, 4_000_000);
      body = text === "" ? undefined : readJson(text);
    } catch {
      return send(res, 400, writeEnvelope(MT5_RETCODE.params));
    }
    // The body wins over the query where both hold a field (docs/connectors.md#vendor-mt5).
    const params: Record<string, unknown> = { ...Object.fromEntries(url.searchParams), ...(isRecord(body) ? body : {}) };
    if (!connection) return send(res, 403, writeEnvelope(MT5_RETCODE.error));
    try {
      if (url.pathname === "/api/auth/start") return send(res, 200, this.authStart(connection, params));
      if (url.pathname === "/api/auth/answer") return send(res, 200, await this.authAnswer(connection, params));
      const session = connection.session;
      // No session on this connection: the vendor answers 403; the client must handshake again.
      if (!session) return send(res, 403, writeEnvelope(MT5_WEB_API_RETCODE.authFailed));
      const forced = this.faults.nextRetcode;
      if (forced) {
        this.faults.nextRetcode = null;
        return send(res, 200, writeEnvelope(forced));
      }
      const answer = await this.command(url.pathname, params, body, session, connection);
      if (answer === DROPPED) return;
      send(res, 200, writeEnvelope(MT5_RETCODE.done, answer));
      if (url.pathname === "/api/quit") connection.socket.end();
    } catch (error) {
      if (error instanceof CommandError)
        return send(res, 200, writeEnvelope(error.retcode, undefined, error.message === error.retcode ? {} : { message: error.message }));
      if (error instanceof NativeError) {
        const native = error.native as Mt5Native["error"];
        return send(res, 200, writeEnvelope(native.retcode, undefined, { message: native.message }));
      }
      if (error instanceof LinkError) {
        // The simulated server dropped this client (a fault, or it stopped): so does the network.
        connection.socket.destroy();
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      send(res, 200, writeEnvelope(MT5_RETCODE.error, undefined, { message }));
    }
  }

  private authStart(connection: Connection, params: Record<string, unknown>): string {
    if (params.type !== "manager" || typeof params.login !== "string" || !/^\d+$/.test(params.login)) return writeEnvelope(MT5_RETCODE.params);
    const srvRand = randomChallenge();
    connection.challenge = { login: params.login, srvRand, at: this.simulated.clock.now() };
    return JSON.stringify({ retcode: MT5_RETCODE.done, version_access: VERSION_ACCESS, srv_rand: srvRand });
  }

  private async authAnswer(connection: Connection, params: Record<string, unknown>): Promise<string> {
    const challenge = connection.challenge;
    connection.challenge = null;
    const window = this.options.handshakeWindowMs ?? 10_000;
    const answer = typeof params.srv_rand_answer === "string" ? params.srv_rand_answer : "";
    const cliRand = typeof params.cli_rand === "string" && /^[0-9a-fA-F]{32}$/.test(params.cli_rand) ? params.cli_rand : null;
    if (!challenge || !cliRand || this.simulated.clock.now() - challenge.at > window) return writeEnvelope(MT5_WEB_API_RETCODE.authFailed);
    const manager = this.manager;
    const hash = passwordHash(manager.password);
    // A wrong login and a wrong password look the same from outside.
    if (challenge.login !== manager.login || !sameAnswer(challengeAnswer(hash, challenge.srvRand), answer))
      return writeEnvelope(MT5_WEB_API_RETCODE.authFailed);
    if (this.faults.authRetcode) return writeEnvelope(this.faults.authRetcode);
    const transport = this.simulated.transport(this.codec);
    connection.session = await transport.open(manager, {
      onPacket: () => undefined, // clients read the numbered feed (/api/toolbox/events)
      onClose: () => connection.socket.destroy(),
    });
    if (connection.socket.destroyed) {
      connection.session.close();
      connection.session = null;
    }
    return JSON.stringify({
      retcode: MT5_RETCODE.done,
      version_access: VERSION_ACCESS,
      version_trade: VERSION_TRADE,
      cli_rand_answer: challengeAnswer(hash, cliRand),
    });
  }

  private async command(
    path: string,
    params: Record<string, unknown>,
    body: unknown,
    session: WireSession<Mt5Native>,
    connection: Connection,
  ): Promise<unknown> {
    switch (path) {
      case "/api/test/access":
        return undefined;
      case "/api/quit":
        return undefined;
      case "/api/time/server": {
        const serverMs = await session.serverTime();
        return { Time: serverTimeText(Math.floor(serverMs / 1000)) };
      }
      case "/api/time/get":
        return { TimeZone: this.simulated.timeZoneOffsetMinutes, Daylight: this.daylightState, DaylightState: this.daylightState, Days: 0 };
      case "/api/user/logins":
        return this.logins(session, text(params.group) || null);
      case "/api/user/total":
        return { Total: (await this.logins(session, null)).length };
      case "/api/user/get":
        return userRecord(await session.getAccount(login(params.login)));
      case "/api/user/get_batch":
        return (await this.users(session, list(params.login))).map(userRecord);
      case "/api/user/account/get":
        return accountRecord(await session.getAccount(login(params.login)));
      case "/api/user/account/get_batch":
        return (await this.users(session, list(params.login))).map(accountRecord);
      case "/api/user/add":
        return userRecord(await session.createAccount(body as Mt5Native["newAccount"]));
      case "/api/user/update": {
        // The vendor's update takes the fields to change, rights as the whole new bit mask.
        const who = login(params.login ?? (isRecord(body) ? body.Login : undefined));
        const { Rights, Login: _login, ...fields } = isRecord(body) ? body : {};
        const patch = fields as Mt5Native["accountPatch"];
        if (typeof Rights === "number") {
          const current = (await session.getAccount(who)).Rights;
          const set = Rights & ~current;
          const clear = current & ~Rights;
          if (set) patch.RightsSet = set;
          if (clear) patch.RightsClear = clear;
        }
        return userRecord(await session.updateAccount(who, patch));
      }
      case "/api/user/change_password": {
        const kind = params.type === "investor" ? "investor" : params.type === "main" || params.type === undefined ? "main" : null;
        if (!kind) throw new CommandError(MT5_RETCODE.params);
        await session.setPassword(login(params.login), text(params.password), kind);
        return undefined;
      }
      case "/api/group/total":
        return { Total: (await session.listGroups()).length };
      case "/api/group/get": {
        const group = (await session.listGroups()).find((g) => g.Group === text(params.group));
        if (!group) throw new CommandError(MT5_RETCODE.notFound, "No such group.");
        return group;
      }
      case "/api/group/next":
        return at(await session.listGroups(), params.index);
      case "/api/group/add":
      case "/api/symbol/add": {
        // The vendor's add replaces the record of that name (a configuration write); this server changes existing ones only.
        if (!isRecord(body)) throw new CommandError(MT5_RETCODE.params, "A configuration record is required in the body.");
        if (path === "/api/group/add") return session.updateGroup(text(body.Group), body as unknown as Mt5Native["group"]);
        return session.updateSymbol(text(body.Symbol), body as unknown as Mt5Native["symbol"]);
      }
      case "/api/symbol/get": {
        const symbol = (await session.listSymbols()).find((x) => x.Symbol === text(params.symbol));
        if (!symbol) throw new CommandError(MT5_RETCODE.notFound, "No such symbol.");
        return symbol;
      }
      case "/api/symbol/total":
        return { Total: (await session.listSymbols()).length };
      case "/api/symbol/next":
        return at(await session.listSymbols(), params.index);
      case "/api/tick/last": {
        const symbols = list(params.symbol);
        if (symbols.length === 0) throw new CommandError(MT5_RETCODE.params, "A symbol is required.");
        return session.getQuotes(symbols);
      }
      case "/api/position/get_total":
        return { Total: (await session.openPositions(login(params.login))).length };
      case "/api/position/get_page":
        return page(await session.openPositions(login(params.login)), params);
      case "/api/position/get_batch": {
        if (params.ticket !== undefined) {
          const tickets = new Set(list(params.ticket));
          return (await session.openPositions(null)).filter((p) => tickets.has(p.Position));
        }
        if (params.group !== undefined) {
          if (text(params.group) !== "*") throw new CommandError(MT5_RETCODE.params, "Only the mask * is served for positions by group.");
          return session.openPositions(null);
        }
        return session.openPositionsOf(list(params.login).map(login));
      }
      case "/api/deal/get_total":
        return { Total: (await this.deals(session, params)).length };
      case "/api/deal/get_page":
        return page(await this.deals(session, params), params);
      case "/api/deal/get_batch":
        return this.deals(session, params);
      case "/api/trade/balance":
        return this.balance(session, params, connection);
      case "/api/dealer/send_request":
        return this.sendRequest(session, body, connection);
      case "/api/dealer/get_request_result":
        return this.dealer.get(list(params.id));
      case "/api/toolbox/journal": {
        if (this.options.toolboxPlugin === false) throw new CommandError(MT5_RETCODE.notFound, `Unknown command ${path}.`);
        const levels = list(params.levels) as never[];
        return session.journal(
          number(params.from),
          number(params.to),
          {
            ...(levels.length > 0 ? { levels } : {}),
            ...(params.login ? { login: text(params.login) } : {}),
            ...(params.text ? { text: text(params.text) } : {}),
          },
          number(params.total),
        );
      }
      case "/api/toolbox/events": {
        if (this.options.toolboxPlugin === false) throw new CommandError(MT5_RETCODE.notFound, `Unknown command ${path}.`);
        const batch = await session.eventsSince(number(params.after), Math.min(number(params.total), 1000));
        const packets = this.simulated.faults.duplicateEvents ? batch.packets.flatMap((p) => [p, p]) : batch.packets;
        return { Events: packets.map((p) => ({ Sequence: p.sequence, Event: p.event })), Complete: batch.complete ? 1 : 0, Latest: batch.latestSequence };
      }
      default: {
        const plugins = await pluginCommand(path, params, body, session);
        if (plugins) return plugins.answer;
        const orders = await this.orders.command(path, params, session);
        if (orders) return orders.answer;
        throw new CommandError(MT5_RETCODE.notFound, `Unknown command ${path}.`);
      }
    }
  }

  /** The users of these logins; logins the server does not know are left out. */
  private async users(session: WireSession<Mt5Native>, logins: string[]): Promise<Mt5User[]> {
    const users: Mt5User[] = [];
    for (const one of logins) {
      try {
        users.push(await session.getAccount(login(one)));
      } catch (error) {
        if (!(error instanceof NativeError) || (error.native as Mt5Native["error"]).retcode !== MT5_RETCODE.notFound) throw error;
      }
    }
    return users;
  }

  /** Every login, in login order, of the accounts whose group matches the mask. */
  private async logins(session: WireSession<Mt5Native>, mask: string | null): Promise<string[]> {
    const logins: string[] = [];
    let after: string | null = null;
    for (;;) {
      const users = await session.listAccounts(after, 1000, mask === "*" ? null : mask);
      logins.push(...users.map((u) => u.Login));
      const last = users.at(-1);
      if (users.length < 1000 || !last) return logins;
      after = last.Login;
    }
  }

  /**
   * Deals of a login, or of every login (`group=*`, the only mask served), between `from` and `to`,
   * unix seconds of server time, both included.
   */
  private async deals(session: WireSession<Mt5Native>, params: Record<string, unknown>) {
    const from = number(params.from);
    const to = number(params.to);
    if (params.group === undefined) return session.history(login(params.login), from * 1000, to * 1000 + 999);
    if (text(params.group) !== "*") throw new CommandError(MT5_RETCODE.params, "Only the mask * is served for deals by group.");
    const deals: Mt5Deal[] = [];
    for (const one of await this.logins(session, "*")) deals.push(...(await session.history(one, from * 1000, to * 1000 + 999)));
    return deals.sort((a, b) => a.TimeMsc - b.TimeMsc || Number(a.Deal) - Number(b.Deal));
  }

  /**
   * `/api/trade/balance`: no operation id at the vendor, so none here. The engine wants one; each
   * call gets a fresh one, so a repeated call moves money again, exactly as on a real server.
   */
  private async balance(session: WireSession<Mt5Native>, params: Record<string, unknown>, connection: Connection): Promise<unknown> {
    const type = number(params.type);
    if (type !== 2 && type !== 3) throw new CommandError(MT5_RETCODE.params, "Only balance (2) and credit (3) operations are served.");
    const comment = text(params.comment);
    if (comment.length > 32) throw new CommandError(MT5_RETCODE.params, "A comment holds at most 32 characters.");
    const amount = text(params.balance);
    if (!/^-?\d+(\.\d{1,2})?$/.test(amount) || Number(amount) === 0) throw new CommandError(MT5_RETCODE.params, "The amount must be a non-zero number.");
    const answer = await session.balance({
      RequestId: `webapi-${this.nextOperation++}`,
      Login: login(params.login),
      Type: type,
      Balance: amount,
      Comment: comment,
    });
    if (this.faults.dropAfterNextBalance) {
      this.faults.dropAfterNextBalance = false;
      connection.socket.destroy();
      return DROPPED;
    }
    return { ticket: answer.Ticket };
  }

  /** A dealer request (docs/connectors.md#vendor-mt5), then the faults that drop or delay its answer. */
  private async sendRequest(session: WireSession<Mt5Native>, body: unknown, connection: Connection): Promise<unknown> {
    const id = await this.dealer.send(session, body, () => `webapi-order-${this.nextOperation++}`);
    const slow = this.faults.slowNextOrderMs;
    if (slow > 0) {
      this.faults.slowNextOrderMs = 0;
      await sleep(this.simulated.clock, slow);
      if (connection.socket.destroyed) return DROPPED;
    }
    if (this.faults.dropAfterNextOrder) {
      this.faults.dropAfterNextOrder = false;
      connection.socket.destroy();
      return DROPPED;
    }
    return { ID: id };
  }
}

const DROPPED = Symbol("dropped");

/** IMTAccount's fields (trade state): `/api/user/account/*` serves them, `/api/user/*` does not. */
const TRADE_STATE = ["Equity", "Margin", "MarginFree", "MarginLevel", "SOActivation"] as const;

/** The user record (IMTUser) as the vendor serves it: no trade state, and no currency (that is the group's). */
function userRecord(user: Mt5User): Omit<Mt5User, (typeof TRADE_STATE)[number] | "Currency"> {
  const record: Partial<Mt5User> = { ...user };
  for (const field of TRADE_STATE) delete record[field];
  delete record.Currency;
  return record as Omit<Mt5User, (typeof TRADE_STATE)[number] | "Currency">;
}

/** The account's trade state (IMTAccount). */
function accountRecord(user: Mt5User) {
  return {
    Login: user.Login,
    CurrencyDigits: 2,
    Balance: user.Balance,
    Credit: user.Credit,
    Equity: user.Equity,
    Margin: user.Margin,
    MarginFree: user.MarginFree,
    MarginLevel: user.MarginLevel,
    SOActivation: user.SOActivation,
  };
}
