/**
 * Orders exactly once over the MT5 Web API, which has no client request id: a dealer request
 * (`dealer/send_request`) runs every time it is sent, and the vendor's request ID is the server's
 * own number, unknown to a retry. So Toolbox's `requestId` travels as a tag at the end of the
 * request's comment (` ~` and ten hex digits of its SHA-256, server/connectors/operationOnce.ts),
 * which MT5 copies onto the deal the request makes (and, for an opening, onto the position), and
 * before anything is sent the account's deals are searched for it:
 *
 * - open: an entry deal with the tag is the position already opened (perhaps closed since by SL);
 * - close, whole or part: an exit deal of that position with the tag is the close already done;
 * - modify: a stops change leaves no deal, so it is recognised from the position itself: stops
 *   already as asked are not sent again.
 *
 * Operations with the same id run one after the other in this process and the first result is
 * kept (OncePerOperation); the tag covers a lost answer, a timeout, a dropped connection and a
 * Toolbox that restarted. The user's comment keeps 20 of the vendor's 32 characters. Limits are in
 * docs/connectors.md ("Orders exactly once").
 */
import { connectorErrors } from "../errors.ts";
import {
  MT5_DEAL_ENTRY,
  MT5_REQUEST_ACTION,
  type Mt5Deal,
  type Mt5DealerAnswer,
  type Mt5DealerRequest,
  type Mt5PendingRequest,
  type Mt5Position,
} from "../mt5/native.ts";
import { OncePerOperation, operationAlreadyUsed, operationTag, taggedComment } from "../operationOnce.ts";
import { pendingOnce, type PendingWire } from "./pending.ts";

export const MAX_TAGGED_ORDER_COMMENT = 20;

/** What a dealer request is sent as: the vendor's IMTRequest, without Toolbox's own request id. */
export type Mt5WireRequest = Omit<Mt5DealerRequest, "RequestId">;

export interface OrderWire {
  /** Server time now, in milliseconds. */
  now(): number;
  /** How far back an account's deals are searched for a tag. */
  lookback: number;
  /** How far back the whole server's deals are searched for the close of a position no longer open. */
  closedLookback: number;
  /** Deals of a login within [from, to], unix seconds of server time; comments as stored. */
  deals(login: string, fromSeconds: number, toSeconds: number): Promise<Mt5Deal[]>;
  /** Deals of every account within [from, to]. */
  allDeals(fromSeconds: number, toSeconds: number): Promise<Mt5Deal[]>;
  /** The open position with this ticket, or null. */
  position(ticket: string): Promise<Mt5Position | null>;
  /** Sends the request and reads its result back: the deal it made, "0" for none. */
  send(request: Mt5WireRequest): Promise<string>;
}

export class OrdersOnce {
  private readonly once = new OncePerOperation<Mt5DealerAnswer>();

  run(request: Mt5DealerRequest, wire: OrderWire): Promise<Mt5DealerAnswer> {
    const { RequestId: _id, ...fingerprint } = request;
    return this.once.run(request.RequestId, JSON.stringify(fingerprint), () => this.perform(request, wire));
  }

  /** A pending order placed, changed or cancelled (pending.ts); one request id is one operation of any kind. */
  runPending(request: Mt5PendingRequest, wire: PendingWire): Promise<Mt5DealerAnswer> {
    const { RequestId: _id, ...fingerprint } = request;
    return this.once.run(request.RequestId, JSON.stringify(fingerprint), () => pendingOnce(request, wire));
  }

  private perform(request: Mt5DealerRequest, wire: OrderWire): Promise<Mt5DealerAnswer> {
    if (request.Action === MT5_REQUEST_ACTION.positionModify) return this.modify(request, wire);
    if (request.Position !== "0") return this.close(request, wire);
    return this.open(request, wire);
  }

  private async open(request: Mt5DealerRequest, wire: OrderWire): Promise<Mt5DealerAnswer> {
    const tag = operationTag(request.RequestId);
    const done = (await this.accountDeals(request.Login, wire)).find((d) => tagged(d, tag));
    if (done) {
      if (done.Entry !== MT5_DEAL_ENTRY.in || done.Symbol !== request.Symbol || done.Action !== request.Type || done.Volume !== request.Volume)
        throw operationAlreadyUsed();
      return fromDeal(request.RequestId, done);
    }
    const deal = await this.send(request, wire);
    return this.readBack(
      request,
      deal,
      (await this.accountDeals(request.Login, wire)).find((d) => tagged(d, tag)),
    );
  }

  private async close(request: Mt5DealerRequest, wire: OrderWire): Promise<Mt5DealerAnswer> {
    const tag = operationTag(request.RequestId);
    const open = await wire.position(request.Position);
    const find = async () => {
      if (open) return (await this.accountDeals(open.Login, wire)).find((d) => tagged(d, tag));
      // Closed, by this request or otherwise: its account is no longer known, so the server's recent deals are searched.
      const now = wire.now();
      return (await wire.allDeals(Math.floor((now - wire.closedLookback) / 1000), Math.ceil(now / 1000) + 86_400)).find((d) => tagged(d, tag));
    };
    const done = await find();
    if (done) {
      if (done.Entry !== MT5_DEAL_ENTRY.out || done.PositionID !== request.Position || (request.Volume !== "0" && done.Volume !== request.Volume))
        throw operationAlreadyUsed();
      return fromDeal(request.RequestId, done);
    }
    // Not found: sent. A position closed meanwhile (its SL, another dealer) is refused by the server, never closed twice.
    const deal = await this.send(request, wire);
    return this.readBack(request, deal, await find());
  }

  private async modify(request: Mt5DealerRequest, wire: OrderWire): Promise<Mt5DealerAnswer> {
    const before = await wire.position(request.Position);
    if (!before || before.PriceSL !== request.PriceSL || before.PriceTP !== request.PriceTP) await this.send(request, wire);
    const after = (await wire.position(request.Position)) ?? before;
    if (!after) throw connectorErrors.unreachable("The trading server changed the position's stops but the position could not be read back.");
    return {
      RequestId: request.RequestId,
      Retcode: DONE,
      Deal: "0",
      Order: "0",
      Position: after.Position,
      Price: after.PriceCurrent,
      Volume: after.Volume,
      TimeMsc: wire.now(),
    };
  }

  private async send(request: Mt5DealerRequest, wire: OrderWire): Promise<string> {
    const { RequestId, ...sent } = request;
    const comment = request.Action === MT5_REQUEST_ACTION.positionModify ? sent.Comment : taggedComment(sent.Comment, RequestId, MAX_TAGGED_ORDER_COMMENT);
    return wire.send({ ...sent, Comment: comment });
  }

  /** The result of a request just sent, from the deal it made (the dealer queue reports neither position nor time). */
  private readBack(request: Mt5DealerRequest, dealId: string, deal: Mt5Deal | undefined): Mt5DealerAnswer {
    if (!deal || deal.Deal !== dealId) throw connectorErrors.unreachable("The trading server filled the order but its deal could not be read back.");
    return fromDeal(request.RequestId, deal);
  }

  private async accountDeals(login: string, wire: OrderWire): Promise<Mt5Deal[]> {
    const now = wire.now();
    return wire.deals(login, Math.floor((now - wire.lookback) / 1000), Math.ceil(now / 1000) + 86_400);
  }
}

function tagged(deal: Mt5Deal, tag: string): boolean {
  return deal.Action <= 1 && deal.Comment.endsWith(tag);
}

const DONE = "10009 Request completed";

function fromDeal(requestId: string, deal: Mt5Deal): Mt5DealerAnswer {
  return {
    RequestId: requestId,
    Retcode: DONE,
    Deal: deal.Deal,
    Order: deal.Order,
    Position: deal.PositionID,
    Price: deal.Price,
    Volume: deal.Volume,
    TimeMsc: deal.TimeMsc,
  };
}
