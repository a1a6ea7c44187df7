/**
 * One idea: the MT5 dealer queue as the Web API serves it (`/api/dealer/send_request`,
 * `/api/dealer/get_request_result`): a request is run at once on the engine and its result is
 * kept under the server's own request number. The faults that drop or delay the answer are the
 * server's (server/protocolServers/mt5WebApi/server.ts).
 */
import { MT5_REASON, MT5_REQUEST_ACTION, MT5_RETCODE, type Mt5DealerAnswer, type Mt5Native, type Mt5PendingRequest } from "../../connectors/mt5/native.ts";
import { NativeError, type WireSession } from "../../connectors/wire/wire.ts";
import { isRecord } from "../common/https.ts";
import { CommandError, number, text } from "./params.ts";

export class DealerQueue {
  /** Per request number: IMTConfirm (`result`) and the IMTRequest with its `Result*` fields (`answer`), as `get_request_result` serves them. */
  private readonly results = new Map<string, { confirm: Record<string, unknown>; answer: Record<string, unknown> }>();
  private nextId = 1;

  /**
   * Runs a dealer request at once and keeps its result under the server's own request number, as
   * the dealer queue reports it. Only the vendor's IMTRequest fields are read: a client's request
   * id (Toolbox's `RequestId`) means nothing to MT5, so a request sent twice runs twice, exactly
   * as on a real server. The engine wants an id: `engineId` makes a fresh one for each request.
   */
  async send(session: WireSession<Mt5Native>, body: unknown, engineId: () => string): Promise<string> {
    if (!isRecord(body)) throw new CommandError(MT5_RETCODE.params);
    const request = imtRequest(body, engineId());
    if (request.Comment.length > 32) throw new CommandError(MT5_RETCODE.params, "A comment holds at most 32 characters.");
    const id = String(this.nextId++);
    const { RequestId: _engineId, ...sent } = request;
    try {
      const answer = await run(session, request);
      this.results.set(id, dealerResult(sent, request.Action === MT5_REQUEST_ACTION.orderPending ? DEALER_PLACED : DEALER_DONE, "", answer));
    } catch (error) {
      if (!(error instanceof NativeError)) throw error;
      const native = error.native as Mt5Native["error"];
      this.results.set(id, dealerResult(sent, native.retcode, native.message, null));
    }
    return id;
  }

  /** `get_request_result`: the results of these request numbers; an unknown one is 13 Not found. */
  get(ids: string[]) {
    return ids.map((id) => {
      const result = this.results.get(id);
      if (!result) throw new CommandError(MT5_RETCODE.notFound, `No request ${id}.`);
      return { ID: id, result: result.confirm, answer: result.answer };
    });
  }
}

const DEALER_DONE = "10009 Request completed";
/** TRADE_RETCODE_PLACED: a pending order was put in the book. */
const DEALER_PLACED = "10008 Order placed";

/** The dealer actions this server serves: open or close at market, stops, and pending orders placed, changed and removed. */
function run(session: WireSession<Mt5Native>, request: Mt5PendingRequest): Promise<Mt5DealerAnswer> {
  switch (request.Action) {
    case MT5_REQUEST_ACTION.positionModify:
      return session.modifyPosition(request);
    case MT5_REQUEST_ACTION.orderPending:
      return session.placePendingOrder(request);
    case MT5_REQUEST_ACTION.orderModify:
      return session.modifyPendingOrder(request);
    case MT5_REQUEST_ACTION.orderRemove:
      return session.cancelPendingOrder(request);
    case MT5_REQUEST_ACTION.positionExecute:
      return request.Position !== "0" ? session.closePosition(request) : session.placeOrder(request);
    default:
      throw new CommandError(MT5_RETCODE.params, `Dealer action ${request.Action} is not served.`);
  }
}

/**
 * What the dealer queue reports for a request: IMTConfirm (the retcode, the deal and order made,
 * volume and price) and the request itself with its `Result*` fields. The position and the time
 * are not in it; a client reads them from the deal. `Message` explains a refusal in words (the
 * vendor gives only the retcode's text); a client copes without it.
 */
function dealerResult(sent: Omit<Mt5PendingRequest, "RequestId">, retcode: string, message: string, answer: Mt5DealerAnswer | null) {
  const deal = answer?.Deal ?? "0";
  const order = answer?.Order ?? "0";
  const volume = answer?.Volume ?? "0";
  const price = answer?.Price ?? 0;
  return {
    confirm: { Retcode: retcode, DealID: deal, OrderID: order, Volume: volume, Price: price, ...(message ? { Message: message } : {}) },
    answer: { ...sent, ResultRetcode: retcode, ResultDeal: deal, ResultOrder: order, ResultVolume: volume, ResultPrice: price },
  };
}

/**
 * The IMTRequest fields this server serves, read as the vendor reads them; anything else in the
 * body (a client's `RequestId`, a `Reason`) is ignored.
 */
function imtRequest(body: Record<string, unknown>, engineId: string): Mt5PendingRequest {
  const whole = (value: unknown, fallback: number) => (value === undefined ? fallback : number(value));
  return {
    RequestId: engineId,
    Action: number(body.Action),
    Login: text(body.Login) || "0",
    Symbol: text(body.Symbol),
    Type: whole(body.Type, -1),
    Volume: text(body.Volume) || "0",
    Position: text(body.Position) || "0",
    Order: text(body.Order) || "0",
    TypeTime: whole(body.TypeTime, 0),
    TimeExpiration: whole(body.TimeExpiration, 0),
    PriceOrder: whole(body.PriceOrder, 0),
    PriceDeviation: whole(body.PriceDeviation, -1),
    PriceSL: whole(body.PriceSL, 0),
    PriceTP: whole(body.PriceTP, 0),
    Comment: text(body.Comment),
    // IMTRequest has no reason a manager could set: what a dealer request makes is the dealer's.
    Reason: MT5_REASON.dealer,
  };
}
