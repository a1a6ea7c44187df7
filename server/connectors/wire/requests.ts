import { MAX_COMMENT_LENGTH } from "../../../core/trading/balance.ts";
/**
 * Checks on what callers ask of any connector, before anything is encoded or sent. The platforms
 * check again; these give the same clear message whatever the platform.
 */
import {
  BALANCE_OPERATION_TYPES,
  isValidLeverage,
  passwordProblem,
  type AccountPatch,
  type BalanceOperationRequest,
  type CancelPendingOrderRequest,
  type ClosePositionRequest,
  type ModifyPendingOrderRequest,
  type ModifyPositionRequest,
  type NewAccount,
  type OrderRequest,
  type PlacePendingOrderRequest,
  PENDING_ORDER_TYPES,
} from "../../../core/trading/index.ts";
import { connectorErrors } from "../errors.ts";

/** MetaTrader 4 keeps 31 characters of a comment; the strictest platform sets the limit for all. */
const MAX_ID_LENGTH = 64;

const invalid = (message: string) => connectorErrors.invalidRequest(message);

export function requireLogin(login: string): void {
  if (typeof login !== "string" || login.trim() === "") throw invalid("An account login is required.");
}

function requireRequestId(id: string, what: string): void {
  if (typeof id !== "string" || id.trim() === "" || id.length > MAX_ID_LENGTH)
    throw invalid(`${what} is required and must be at most ${MAX_ID_LENGTH} characters.`);
}

function requireComment(comment: string | undefined): void {
  if (comment !== undefined && comment.length > MAX_COMMENT_LENGTH) throw invalid(`Comments are limited to ${MAX_COMMENT_LENGTH} characters.`);
}

function requireLeverage(leverage: number | undefined): void {
  if (leverage !== undefined && !isValidLeverage(leverage)) throw invalid("Leverage must be a whole number from 1 to 10000 (1:1 to 1:10000).");
}

function requirePrice(price: number | null | undefined, what: string): void {
  if (price !== undefined && price !== null && !(Number.isFinite(price) && price > 0)) throw invalid(`${what} must be a positive price, or empty.`);
}

function requireVolume(volume: number | undefined): void {
  if (volume !== undefined && !(Number.isSafeInteger(volume) && volume > 0)) throw invalid("Volume must be a positive number of 1/10000 lots.");
}

export function checkPassword(password: string): void {
  const problem = passwordProblem(password);
  if (problem) throw invalid(problem);
}

export function checkNewAccount(account: NewAccount): void {
  if (!account.group?.trim()) throw invalid("A group is required for a new account.");
  if (!account.name?.trim()) throw invalid("A name is required for a new account.");
  if (account.login !== undefined) requireLogin(account.login);
  requireLeverage(account.leverage);
  requireComment(account.comment);
  checkPassword(account.password);
  if (account.investorPassword !== undefined) checkPassword(account.investorPassword);
}

export function checkPatch(patch: AccountPatch): void {
  if (patch.group !== undefined && !patch.group.trim()) throw invalid("The group cannot be empty.");
  requireLeverage(patch.leverage);
  requireComment(patch.comment);
  if (patch.otpEnabled !== undefined && patch.otpEnabled !== false)
    throw invalid("One-time passwords can only be turned off by a dealer; the client turns them on.");
}

export function checkBalanceOperation(request: BalanceOperationRequest): void {
  requireRequestId(request.operationId, "An operation id");
  requireLogin(request.login);
  if (!BALANCE_OPERATION_TYPES.includes(request.type)) throw invalid(`Unknown operation "${String(request.type)}".`);
  if (!(Number.isSafeInteger(request.amount) && request.amount > 0)) throw invalid("The amount must be positive, in cents of the account currency.");
  requireComment(request.comment);
}

export function checkOrder(request: OrderRequest): void {
  requireRequestId(request.requestId, "A request id");
  requireLogin(request.login);
  if (!request.symbol?.trim()) throw invalid("A symbol is required.");
  if (request.side !== "buy" && request.side !== "sell") throw invalid("The side must be buy or sell.");
  requireVolume(request.volume);
  requirePrice(request.sl, "Stop loss");
  requirePrice(request.tp, "Take profit");
  requirePrice(request.expectedPrice, "The expected price");
  requireComment(request.comment);
}

export function checkModify(request: ModifyPositionRequest): void {
  requireRequestId(request.requestId, "A request id");
  if (!request.positionId) throw invalid("A position is required.");
  requirePrice(request.sl, "Stop loss");
  requirePrice(request.tp, "Take profit");
}

export function checkClose(request: ClosePositionRequest): void {
  requireRequestId(request.requestId, "A request id");
  if (!request.positionId) throw invalid("A position is required.");
  requireVolume(request.volume);
  requireComment(request.comment);
}

function requireExpiration(expiration: number | null | undefined): void {
  if (expiration !== undefined && expiration !== null && !(Number.isSafeInteger(expiration) && expiration > 0))
    throw invalid("The expiration must be a time (UTC milliseconds), or empty for good till cancelled.");
}

export function checkPendingOrder(request: PlacePendingOrderRequest): void {
  requireRequestId(request.requestId, "A request id");
  requireLogin(request.login);
  if (!request.symbol?.trim()) throw invalid("A symbol is required.");
  if (!PENDING_ORDER_TYPES.includes(request.type)) throw invalid("The order type must be buy limit, sell limit, buy stop or sell stop.");
  if (request.volume === undefined) throw invalid("A volume is required.");
  requireVolume(request.volume);
  if (request.price === undefined || request.price === null) throw invalid("The order's price is required.");
  requirePrice(request.price, "The order's price");
  requirePrice(request.sl, "Stop loss");
  requirePrice(request.tp, "Take profit");
  requireExpiration(request.expiration);
  requireComment(request.comment);
}

export function checkModifyPendingOrder(request: ModifyPendingOrderRequest): void {
  requireRequestId(request.requestId, "A request id");
  if (!request.orderId) throw invalid("An order is required.");
  if (request.price === undefined || request.price === null) throw invalid("The order's price is required.");
  requirePrice(request.price, "The order's price");
  requirePrice(request.sl, "Stop loss");
  requirePrice(request.tp, "Take profit");
  requireExpiration(request.expiration);
  if (request.login !== undefined) requireLogin(request.login);
}

export function checkCancelPendingOrder(request: CancelPendingOrderRequest): void {
  requireRequestId(request.requestId, "A request id");
  if (!request.orderId) throw invalid("An order is required.");
  if (request.login !== undefined) requireLogin(request.login);
}

export function checkRange(from: number, to: number): void {
  if (!Number.isFinite(from) || !Number.isFinite(to) || from > to) throw invalid("The time range is not valid: its start must not be after its end.");
}

export function checkLimit(limit: number, max: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > max) throw invalid(`The page size must be from 1 to ${max}.`);
}

/** Page cursors are opaque to callers; inside, the last login of the page. */
export const pageCursor = {
  encode: (login: string) => Buffer.from(`after:${login}`).toString("base64url"),
  decode(cursor: string): string {
    const text = Buffer.from(cursor, "base64url").toString();
    if (!text.startsWith("after:") || text.length === 6) throw invalid("This page link is no longer valid; start again from the first page.");
    return text.slice(6);
  },
};

export { MAX_COMMENT_LENGTH };

/** A configuration write names its object and carries the version the editor read (core/trading/configVersion.ts). */
export function checkConfigWrite(name: string, expected: string, what: "group" | "symbol" | "holiday list"): void {
  if (typeof name !== "string" || name.trim() === "") throw invalid(`The ${what}'s name is required.`);
  if (typeof expected !== "string" || expected.trim() === "")
    throw invalid(`The version of the ${what} as it was read is required, so that a change made meanwhile is not overwritten.`);
}
