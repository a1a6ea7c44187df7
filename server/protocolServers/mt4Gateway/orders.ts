/**
 * The local MT4 gateway's orders (docs/mt4-gateway.md, "TradeTransaction"): TT_BR_ORDER_OPEN with
 * OP_BUY/OP_SELL opens a market trade and with OP_BUY_LIMIT … OP_SELL_STOP places a pending order;
 * TT_BR_ORDER_MODIFY changes a trade's stops or a pending order's price, stops and expiration (the
 * ticket says which); TT_BR_ORDER_CLOSE closes a trade; TT_BR_ORDER_DELETE deletes a pending order.
 * Each carries the gateway's `request_id`, which the simulated server behind it keeps: a repeated id
 * answers the first result or refusal. Also the checks the gateway makes on the request's fields.
 */
import { fromWire, MT4_COMMENT_MAX, MT4_GATEWAY_REQUEST_ID, MT4_GATEWAY_RET, MT4_TT, toWire } from "../../connectors/mt4Gateway/format.ts";
import { isPendingOrder, MT4_CMD, MT4_REASON, type Mt4Native } from "../../connectors/mt4/native.ts";
import type { WireSession } from "../../connectors/wire/wire.ts";

export class CommandError extends Error {
  constructor(
    readonly ret: number,
    message: string,
  ) {
    super(message);
  }
}

const KINDS = new Map<unknown, "open" | "modify" | "close" | "delete">([
  [MT4_TT.brOrderOpen, "open"],
  [MT4_TT.brOrderModify, "modify"],
  [MT4_TT.brOrderClose, "close"],
  [MT4_TT.brOrderDelete, "delete"],
]);

/**
 * The gateway's memory of request ids: what each modify's id was sent to, so a retry goes where the
 * first went even after the ticket changed (a pending order that filled since is a trade under the
 * same ticket), bounded as the ids themselves are; and the prefix under which the ids reach the
 * engine's memo. A gateway that loses its memory (the `forgetRequestIds` fault: reinstalled, or
 * restarted without persistence) starts a new one with a new prefix, so every id is new to it.
 */
export class ModifyTargets {
  private readonly targets = new Map<string, boolean>();

  constructor(
    private readonly capacity = 1_000_000,
    readonly idPrefix = "",
  ) {}

  async isPending(requestId: string, decide: () => Promise<boolean>): Promise<boolean> {
    const known = this.targets.get(requestId);
    if (known !== undefined) return known;
    const pending = await decide();
    this.targets.set(requestId, pending);
    if (this.targets.size > this.capacity) {
      const oldest = this.targets.keys().next().value;
      if (oldest !== undefined) this.targets.delete(oldest);
    }
    return pending;
  }
}

/** Runs one TT_BR_ORDER_* transaction; the answer's fields in the wire's units. */
export async function runOrder(session: WireSession<Mt4Native>, body: Record<string, unknown>, modifies: ModifyTargets) {
  const kind = KINDS.get(body.type);
  if (!kind)
    throw new CommandError(
      MT4_GATEWAY_RET.invalidData,
      "Served transaction types: TT_BR_ORDER_OPEN 75, TT_BR_ORDER_CLOSE 76, TT_BR_ORDER_DELETE 77, TT_BR_ORDER_MODIFY 80, TT_BR_BALANCE 83.",
    );
  const requestId = text(body.request_id);
  if (!MT4_GATEWAY_REQUEST_ID.test(requestId))
    throw new CommandError(MT4_GATEWAY_RET.invalidData, "request_id is required (1 to 100 letters, digits, _ : . -).");
  const cmd = typeof body.cmd === "number" ? body.cmd : -1;
  if (kind === "open" && !(cmd === MT4_CMD.buy || cmd === MT4_CMD.sell || isPendingOrder({ cmd })))
    throw new CommandError(MT4_GATEWAY_RET.invalidData, "TT_BR_ORDER_OPEN takes cmd OP_BUY (0), OP_SELL (1) or a pending command (2 to 5).");
  const comment = text(body.comment);
  if (comment.length > MT4_COMMENT_MAX) throw new CommandError(MT4_GATEWAY_RET.invalidData, `A comment holds at most ${MT4_COMMENT_MAX} characters.`);
  const transaction = fromWire.transaction({
    request_id: modifies.idPrefix + requestId,
    login: orZero(body.login),
    order: orZero(body.order),
    symbol: text(body.symbol),
    cmd,
    volume: number(body.volume, 0),
    price: number(body.price, 0),
    deviation: number(body.ie_deviation, -1),
    sl: number(body.sl, 0),
    tp: number(body.tp, 0),
    comment,
    reason: number(body.reason, MT4_REASON.dealer),
    expiration: number(body.expiration, 0),
  });
  const { expiration: _expiration, ...market } = transaction;
  const result =
    kind === "open"
      ? isPendingOrder({ cmd })
        ? await session.placePendingOrder({ ...transaction, type: "open" })
        : await session.placeOrder({ ...market, type: "open" })
      : kind === "modify"
        ? (await modifies.isPending(transaction.request_id, () => isWaitingOrder(session, transaction.order)))
          ? await session.modifyPendingOrder({ ...transaction, type: "modify" })
          : await session.modifyPosition({ ...market, type: "modify" })
        : kind === "close"
          ? await session.closePosition({ ...market, type: "close" })
          : await session.cancelPendingOrder({ ...transaction, type: "delete" });
  const wire = toWire.result(result);
  return { order: wire.order, price: wire.price, volume: wire.volume, time: wire.time };
}

/** A modify names a ticket only: it is a pending order's while that order waits, else a trade's. */
async function isWaitingOrder(session: WireSession<Mt4Native>, ticket: number): Promise<boolean> {
  return (await session.pendingOrders(null)).some((o) => o.order === ticket);
}

export function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function number(value: unknown, otherwise: number): number {
  return typeof value === "number" && Number.isFinite(value) ? value : otherwise;
}

export function login(value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0)
    throw new CommandError(MT4_GATEWAY_RET.invalidData, "A login or ticket is a positive integer.");
  return value;
}

/** A login or ticket where 0 means "none" (TradeTransInfo's convention). */
function orZero(value: unknown): number {
  return value === undefined || value === 0 ? 0 : login(value);
}
