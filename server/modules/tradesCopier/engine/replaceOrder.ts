/**
 * A source's change of a pending order on a follower whose platform cannot change one in place
 * (`capabilities.changePendingOrder` false: the Match-Trader Broker API, decision
 * 0077-match-trader-pending-order-changes): the copy is cancelled and placed again, two
 * exactly-once operations, each a ledger row with its own request id and its own outcome.
 * - Both rows are written before anything is sent: the cancel under the change's request id (its
 *   action carries the placement, so a crash between the two inserts loses nothing), the place
 *   under an id derived from it (its action names the cancel it follows, `replaces`).
 * - The place is sent only once the cancel is done: a cancel refused (the copy filled or left
 *   meanwhile) fails the place with it, so the follower never holds two orders, nor a new order
 *   beside a position its old one filled into; a cancel without an answer leaves both pending, and
 *   the next pass sends the cancel again, then the place.
 * - The placed order is the source order's copy from then on (the ledger's `placeOrder` row): its
 *   fill, cancel or next change follow it.
 * Where the follower takes no expiration on a place either, the copy is placed without one
 * (`withoutExpiration`): the source's expiry arrives as its cancellation and cancels the copy.
 */
import { stableId, type CopiedOrder, type FollowerAction } from "../../../../core/copier/index.ts";
import type { TradePlatformConnector } from "../../../connectors/connector.ts";
import type { CopierDeps } from "./copyOne.ts";
import * as ledger from "./ledgerRepository.ts";

type ModifyOrder = Extract<FollowerAction, { type: "modifyOrder" }>;
type PlaceOrder = Extract<FollowerAction, { type: "placeOrder" }>;
type CancelOrder = Extract<FollowerAction, { type: "cancelOrder" }>;
/** The cancel step: the placement that follows it rides along in the ledger. */
export type ReplaceCancel = CancelOrder & { replacement: PlaceOrder };
/** The place step: the request id of the cancel it follows. */
export type ReplacePlace = PlaceOrder & { replaces: string };

type Send = (deps: CopierDeps, row: ledger.LedgerRow, connector: TradePlatformConnector) => Promise<"done" | "failed" | "unknown">;

/** The follower's platform takes no expiration on a place: the copy waits without one. */
export function withoutExpiration<A extends FollowerAction>(action: A, connector: TradePlatformConnector): A {
  return action.type === "placeOrder" && connector.capabilities.pendingOrderExpiration === false && action.expiration !== null
    ? { ...action, expiration: null }
    : action;
}

/** The change is to be made as a cancel and a new place on this follower. */
export function mustReplace(action: FollowerAction, connector: TradePlatformConnector): action is ModifyOrder {
  return action.type === "modifyOrder" && !connector.capabilities.changePendingOrder;
}

/** The two steps of a change made as a cancel and a new place of the copy. */
export function replacementOf(change: ModifyOrder, copied: CopiedOrder, connector: TradePlatformConnector): ReplaceCancel {
  const replacement = withoutExpiration(
    {
      type: "placeOrder",
      requestId: stableId(`${change.requestId}|replace`),
      symbol: copied.symbol,
      orderType: copied.type,
      volume: copied.volume,
      price: change.price,
      sl: change.sl,
      tp: change.tp,
      expiration: change.expiration,
    } satisfies PlaceOrder,
    connector,
  );
  return { type: "cancelOrder", requestId: change.requestId, orderId: change.orderId, replacement };
}

export function isReplaceCancel(row: ledger.LedgerRow): boolean {
  return row.followerAction === "cancelOrder" && typeof (row.action as Partial<ReplaceCancel> | null)?.replacement === "object";
}

export function isReplacePlace(row: ledger.LedgerRow): boolean {
  return row.followerAction === "placeOrder" && typeof (row.action as Partial<ReplacePlace> | null)?.replaces === "string";
}

/** The place step's row, written (pending, this node's lease) if a crash came between the two inserts. */
async function placeRowOf(deps: CopierDeps, cancel: ledger.LedgerRow, connector: TradePlatformConnector): Promise<ledger.LedgerRow | undefined> {
  const { replacement } = cancel.action as ReplaceCancel;
  const action: ReplacePlace = { ...replacement, replaces: cancel.requestId };
  const inserted = await ledger.insertRow(
    deps.db,
    {
      requestId: replacement.requestId,
      organizationId: cancel.organizationId,
      linkId: cancel.linkId,
      followerPlatformId: cancel.followerPlatformId,
      followerLogin: cancel.followerLogin,
      sourceId: cancel.sourceId,
      sourceAction: cancel.sourceAction,
      sourceVolume: cancel.sourceVolume,
      sourceTime: cancel.sourceTime,
      receivedAt: cancel.receivedAt,
      // After the cancel, so the ledger reads the new order as the copy from then on.
      decidedAt: new Date(cancel.decidedAt.getTime() + 1),
      state: "pending",
      followerAction: "placeOrder",
      action,
      leaseHolder: deps.nodeId,
      ...ledger.describe(replacement),
    },
    ledger.leaseMsOf(connector),
  );
  return inserted ?? (await ledger.findRow(deps.db, replacement.requestId));
}

/** This node's hold on a pending row: its own lease, or one taken over once it ran out. */
async function held(deps: CopierDeps, row: ledger.LedgerRow, connector: TradePlatformConnector): Promise<ledger.LedgerRow | undefined> {
  if (row.state !== "pending") return undefined;
  if (row.leaseHolder === deps.nodeId) return row;
  return ledger.takeOver(deps.db, row.requestId, deps.nodeId, ledger.leaseMsOf(connector));
}

/**
 * Runs a replacement from its cancel step (held by this node, or already settled): the cancel if
 * still pending, then the place once the cancel is done, or the place failed with the cancel.
 */
export async function runReplace(deps: CopierDeps, cancel: ledger.LedgerRow, connector: TradePlatformConnector, send: Send): Promise<void> {
  const place = await placeRowOf(deps, cancel, connector);
  const cancelled = cancel.state === "pending" ? await send(deps, cancel, connector) : cancel.state;
  if (!place) return;
  if (cancelled === "done") {
    const mine = await held(deps, place, connector);
    if (mine) await send(deps, mine, connector);
  } else if (cancelled === "failed") {
    const mine = await held(deps, place, connector);
    const why = (await ledger.findRow(deps.db, cancel.requestId))?.reason ?? "the cancel was refused";
    if (mine) {
      const reason = `Not placed again: the follower's order could not be cancelled first (${why}).`;
      if (await ledger.settle(deps.db, mine.requestId, deps.nodeId, { state: "failed", reason })) deps.failed({ ...mine, reason });
    }
  }
}

/**
 * A place step taken over on its own (the pass found its lease run out): sent once its cancel is
 * done; failed with a refused cancel; else given back, and the cancel is driven first.
 */
export async function resendPlace(
  deps: CopierDeps,
  place: ledger.LedgerRow,
  connector: TradePlatformConnector,
  send: Send,
  resend: (deps: CopierDeps, row: ledger.LedgerRow) => Promise<void>,
): Promise<void> {
  const cancel = await ledger.findRow(deps.db, (place.action as ReplacePlace).replaces);
  if (cancel?.state === "done") {
    await send(deps, place, connector);
    return;
  }
  if (!cancel) {
    const reason = "Not placed: the cancel it was to follow is not in the copier's records.";
    if (await ledger.settle(deps.db, place.requestId, deps.nodeId, { state: "failed", reason })) deps.failed({ ...place, reason });
    return;
  }
  await ledger.releaseRow(deps.db, place.requestId, deps.nodeId);
  if (cancel.state === "pending") await resend(deps, cancel);
  else await runReplace(deps, cancel, connector, send);
}
