/**
 * The Match-Trader Broker API's REST routes (docs/connectors.md#vendor-match-trader), answered by a session with the
 * simulation engine. Paths and bodies follow the vendor where the vendor's published API gives them (docs/connectors.md#vendor-match-trader); the few reads it
 * has no REST path for (groups, quotes, journal, account edits) are this server's own, named in
 * decision 0056. Every route returns `{ status, body }`; failures are the engine's native errors.
 */
import { randomUUID } from "node:crypto";
import { JOURNAL_LEVELS, type JournalLevel, type PasswordKind } from "../../../core/trading/index.ts";
import type { MatchTraderNative, MtError, MtLedgerType, MtNewTradingAccount } from "../../connectors/matchTrader/native.ts";
import type { SimulatedEngine } from "../../connectors/simulated/engine/engine.ts";
import { NativeError, type WireSession } from "../../connectors/wire/wire.ts";
import { orderRoute } from "./orders.ts";

export const SYSTEM_UUID = "5d0c9c8e-8b9d-4f4e-9a43-1f0e6f7c2a01";
export const MANUAL_GATEWAY_UUID = "0b7a3f52-3c1e-4d7f-8f4e-9d6a2b1c5e11";

export interface RestRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}

export interface RestAnswer {
  status: number;
  body?: unknown;
}

/** A 400 the route raises itself (a missing or malformed field). */
export function badRequest(message: string): NativeError<MtError> {
  return new NativeError<MtError>({ status: 400, errorCode: "INVALID_REQUEST", message });
}

type Body = Record<string, unknown>;

function object(body: unknown): Body {
  if (!body || typeof body !== "object" || Array.isArray(body)) throw badRequest("The request body must be a JSON object.");
  return body as Body;
}

function text(from: Body | URLSearchParams, name: string): string {
  const value = from instanceof URLSearchParams ? from.get(name) : from[name];
  if (typeof value !== "string" || value === "") throw badRequest(`"${name}" is required.`);
  return value;
}

function optionalText(from: Body, name: string): string {
  const value = from[name];
  if (value === undefined || value === null) return "";
  if (typeof value !== "string") throw badRequest(`"${name}" must be a string.`);
  return value;
}

function decimal(from: Body, name: string): string {
  const value = from[name];
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value)) return value;
  throw badRequest(`"${name}" must be a decimal number.`);
}

function price(from: Body, name: string): number | null {
  const value = from[name];
  if (value === undefined || value === null) return null;
  if (typeof value !== "number" || !Number.isFinite(value)) throw badRequest(`"${name}" must be a number.`);
  return value;
}

function lots(from: Body, name: string): number {
  const value = from[name];
  if (typeof value !== "number" || !Number.isFinite(value)) throw badRequest(`"${name}" must be a number of lots.`);
  return value;
}

function checkSystem(from: Body | URLSearchParams): void {
  if (text(from, "systemUuid") !== SYSTEM_UUID) throw new NativeError<MtError>({ status: 404, errorCode: "NOT_FOUND", message: "Unknown systemUuid." });
}

/**
 * A trading call's answer, as the vendor documents it: `{status, orderId}` and nothing of what was
 * filled (a client reads that back from positions, closed positions and ledgers).
 */
function executed(result: MatchTraderNative["orderResult"]) {
  return { status: 200, body: { status: "OK", orderId: result.closeId ?? result.positionId } };
}

/** A trading call the engine refused: HTTP 200 with status REJECTED, as the vendor's trading endpoints answer. */
async function trading(run: () => Promise<MatchTraderNative["orderResult"]>): Promise<RestAnswer> {
  try {
    return executed(await run());
  } catch (error) {
    if (error instanceof NativeError && (error.native as MtError).status === 422) {
      const native = error.native as MtError;
      return { status: 200, body: { status: "REJECTED", orderId: null, errorCode: native.errorCode, message: native.message } };
    }
    throw error;
  }
}

/** `engine`: the simulation behind the session, for the order history (its finished orders); none: an empty history. */
export async function route(session: WireSession<MatchTraderNative>, request: RestRequest, engine: SimulatedEngine | null = null): Promise<RestAnswer | null> {
  const { method, path, query } = request;
  const key = `${method} ${path}`;
  switch (key) {
    case "GET /service-info":
      return { status: 200, body: { name: "Toolbox Match-Trader protocol server", serverTime: await session.serverTime() } };
    case "GET /v1/offers": {
      const groups = await session.listGroups();
      return {
        status: 200,
        body: groups.map((g) => ({
          uuid: g.offerUuid,
          name: g.name,
          currency: g.currency,
          demo: false,
          leverage: g.defaultLeverage,
          initialDeposit: 0,
          groupName: g.name,
          branch: g.branch,
          system: { uuid: SYSTEM_UUID, systemType: "QFX" },
        })),
      };
    }
    case "GET /v1/payment-gateways":
      return { status: 200, body: [{ uuid: MANUAL_GATEWAY_UUID, name: "Manual", currency: null, manual: true }] };
    case "GET /v1/groups":
      checkSystem(query);
      return { status: 200, body: await session.listGroups() };
    case "GET /v1/symbols":
      checkSystem(query);
      return { status: 200, body: await session.listSymbols() };
    // Configuration writes: the whole group (with its offer's leverage) or instrument of that name.
    case "PUT /v1/groups":
      checkSystem(query);
      return { status: 200, body: await session.updateGroup(text(query, "name"), object(request.body) as unknown as MatchTraderNative["group"]) };
    case "PUT /v1/symbols":
      checkSystem(query);
      return { status: 200, body: await session.updateSymbol(text(query, "symbol"), object(request.body) as unknown as MatchTraderNative["symbol"]) };
    case "GET /v1/quotations": {
      checkSystem(query);
      const symbols = query.get("symbols");
      return { status: 200, body: await session.getQuotes(symbols ? symbols.split(",") : null) };
    }
    case "GET /v1/trading-accounts": {
      checkSystem(query);
      const size = Number(query.get("size") ?? "10");
      if (!Number.isInteger(size) || size < 1 || size > 5000) throw badRequest('"size" must be a whole number from 1 to 5000.');
      const content = await session.listAccounts(query.get("afterLogin"), size, query.get("groupMask"));
      return { status: 200, body: { content, number: 0, size, numberOfElements: content.length, last: content.length < size } };
    }
    case "GET /v1/trading-account":
      checkSystem(query);
      return { status: 200, body: await session.getAccount(text(query, "login")) };
    case "POST /v1/trading-accounts": {
      const body = object(request.body);
      checkSystem(body);
      const { systemUuid: _system, ...account } = body;
      return { status: 200, body: await session.createAccount(account as unknown as MtNewTradingAccount) };
    }
    case "PATCH /v1/trading-account":
      checkSystem(query);
      return { status: 200, body: await session.updateAccount(text(query, "login"), object(request.body)) };
    case "PUT /v1/trading-account/password": {
      checkSystem(query);
      const body = object(request.body);
      const kind = (optionalText(body, "kind") || "main") as PasswordKind;
      await session.setPassword(text(query, "login"), text(body, "password"), kind);
      return { status: 204 };
    }
    case "GET /v1/trading-accounts/trading-data/open-positions":
      checkSystem(query);
      // The vendor's read is one account's: a login is required (all accounts: the bulk read below).
      return { status: 200, body: { positions: await session.openPositions(text(query, "login")) } };
    case "POST /v1/trading-accounts/trading-data/open-positions-by-logins-or-groups": {
      const body = object(request.body);
      checkSystem(body);
      const logins = body.logins;
      if (!Array.isArray(logins) || !logins.every((l) => typeof l === "string")) throw badRequest('"logins" must be a list of logins.');
      return { status: 200, body: { positions: await session.openPositionsOf(logins) } };
    }
    case "GET /v1/trading-accounts/trading-data/closed-positions":
    case "GET /v1/trading-accounts/trading-data/ledgers": {
      checkSystem(query);
      const records = await session.history(text(query, "login"), text(query, "from"), text(query, "to"));
      if (path.endsWith("ledgers")) {
        const types = query.get("types")?.split(",");
        return { status: 200, body: { ledgers: records.filter((r) => r.kind === "LEDGER" && (!types || types.includes(r.type))) } };
      }
      return { status: 200, body: { closedPositions: records.filter((r) => r.kind === "CLOSED_POSITION") } };
    }
    case "GET /v1/journal": {
      const levels = query
        .get("levels")
        ?.split(",")
        .filter((l): l is JournalLevel => (JOURNAL_LEVELS as readonly string[]).includes(l));
      const filter = {
        ...(levels ? { levels } : {}),
        ...(query.get("login") ? { login: query.get("login")! } : {}),
        ...(query.get("text") ? { text: query.get("text")! } : {}),
      };
      const entries = await session.journal(text(query, "from"), text(query, "to"), filter, Number(query.get("limit") ?? "1000"));
      return { status: 200, body: { entries } };
    }
    case "POST /v1/deposits/manual":
    case "POST /v1/withdrawals/manual":
    case "POST /v1/credit/in":
    case "POST /v1/credit/out": {
      const body = object(request.body);
      checkSystem(body);
      const type: MtLedgerType = path.includes("deposits")
        ? "DEPOSIT"
        : path.includes("withdrawals")
          ? "WITHDRAWAL"
          : path.endsWith("in")
            ? "CREDIT_IN"
            : "CREDIT_OUT";
      if (type === "DEPOSIT" || type === "WITHDRAWAL") text(body, "paymentGatewayUuid");
      const result = await session.balance({
        requestId: randomUUID(),
        login: text(body, "login"),
        type,
        amount: decimal(body, "amount"),
        comment: optionalText(body, "comment"),
      });
      if (type === "CREDIT_IN" || type === "CREDIT_OUT") return { status: 204 };
      return {
        status: 200,
        body: {
          uuid: result.ledgerId,
          created: result.time,
          status: "DONE",
          transactionInfo: { login: result.login, amount: result.amount, balance: result.balance, credit: result.credit },
        },
      };
    }
    case "POST /v1/trading-accounts/positions/open": {
      const body = object(request.body);
      checkSystem(body);
      const side = text(body, "orderSide");
      if (side !== "BUY" && side !== "SELL") throw badRequest('"orderSide" must be BUY or SELL.');
      return trading(() =>
        session.placeOrder({
          requestId: randomUUID(),
          login: text(body, "login"),
          instrument: text(body, "instrument"),
          side: side,
          volume: lots(body, "volume"),
          stopLoss: price(body, "slPrice"),
          takeProfit: price(body, "tpPrice"),
          // The published body has no expected price, slippage or comment: a market order fills at
          // the server's price and its position has no comment.
          expectedPrice: null,
          slippage: null,
          comment: "",
          reason: "API",
        }),
      );
    }
    case "POST /v1/trading-accounts/positions/edit": {
      const body = object(request.body);
      checkSystem(body);
      return trading(() =>
        session.modifyPosition({ requestId: randomUUID(), positionId: text(body, "id"), stopLoss: price(body, "slPrice"), takeProfit: price(body, "tpPrice") }),
      );
    }
    case "POST /v1/trading-accounts/positions/close": {
      const body = object(request.body);
      checkSystem(body);
      const list = body.closePositions;
      if (!Array.isArray(list) || list.length !== 1) throw badRequest('"closePositions" must name one position.');
      const one = object(list[0]);
      return trading(() =>
        session.closePosition({
          requestId: randomUUID(),
          positionId: text(one, "positionId"),
          volume: null,
          // The published close bodies carry no comment.
          comment: "",
          reason: "API",
        }),
      );
    }
    case "POST /v1/trading-accounts/positions/close-partially": {
      const body = object(request.body);
      checkSystem(body);
      return trading(() =>
        session.closePosition({
          requestId: randomUUID(),
          positionId: text(body, "positionId"),
          volume: lots(body, "volume"),
          comment: "",
          reason: "API",
        }),
      );
    }
    default:
      return orderRoute(session, request, { object, text, price, lots, checkSystem }, engine);
  }
}
