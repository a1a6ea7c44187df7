/**
 * A recorded follower action sent to the follower's platform, and the answer recorded
 * (docs/trades-copier.md "The engine"); a pending row whose lease ran out sent again with its own
 * request id; a follower whose context could not be read recorded as not decided.
 */
import { copyRequestId, followerKey, sourceIdOf, type FollowerAction, type SourceAction } from "../../../../core/copier/index.ts";
import type { FollowerSettings } from "../../../../core/schemas/copier.ts";
import type { TradePlatformConnector } from "../../../connectors/connector.ts";
import { ConnectorError } from "../../../connectors/errors.ts";
import type { CopierDeps, EngineLink, Times } from "./copyOne.ts";
import * as ledger from "./ledgerRepository.ts";
import { isReplaceCancel, isReplacePlace, resendPlace, runReplace, type ReplacePlace } from "./replaceOrder.ts";

/** A pending row: sent again with its own request id when its lease ran out (else another worker has it). */
export async function resend(deps: CopierDeps, row: ledger.LedgerRow): Promise<void> {
  const connector = await deps.connectorFor(row.organizationId, row.followerPlatformId);
  const taken = await ledger.takeOver(deps.db, row.requestId, deps.nodeId, ledger.leaseMsOf(connector));
  if (!taken) return;
  if (isReplaceCancel(taken)) await runReplace(deps, taken, connector, send);
  else if (isReplacePlace(taken)) await resendPlace(deps, taken, connector, send, resend);
  else await send(deps, taken, connector);
}

const REFUSED = new Set(["rejected", "invalidRequest", "notFound"]);

/**
 * Sends the recorded action with its request id and records the answer. A refusal is final
 * (`failed`, the platform's words, `copierFailure`); an unknown outcome (timeout, lost link) gives
 * the lease up, and the next pass sends the same request id again.
 */
export async function send(deps: CopierDeps, row: ledger.LedgerRow, connector: TradePlatformConnector, marked = false): Promise<"done" | "failed" | "unknown"> {
  const action = row.action as FollowerAction;
  const login = row.followerLogin;
  // A row recorded as sent when it was decided (ledger.insertRows) is not marked again.
  if (!marked) await ledger.markSent(deps.db, row.requestId, deps.nodeId);
  let followerPositionId: string | null;
  try {
    switch (action.type) {
      case "open": {
        const { type: _type, ...order } = action;
        followerPositionId = (await connector.placeOrder({ ...order, login, reason: "api" })).positionId;
        break;
      }
      case "close": {
        await connector.closePosition({ requestId: action.requestId, positionId: action.positionId, ...(action.whole ? {} : { volume: action.volume }) });
        followerPositionId = action.positionId;
        if (!action.whole) {
          // MT4 re-issues the rest of a partly closed ticket under a new one: the copy continues there.
          const open = await connector.openPositions(login).catch(() => []);
          followerPositionId = open.find((p) => p.previousId === action.positionId)?.id ?? action.positionId;
        }
        break;
      }
      case "modify":
        followerPositionId = (await connector.modifyPosition(action)).positionId;
        break;
      case "placeOrder": {
        const { type: _type, orderType, replaces: _replaces, ...rest } = action as ReplacePlace;
        followerPositionId = (await connector.placePendingOrder({ ...rest, type: orderType, login, reason: "api" })).orderId;
        break;
      }
      case "modifyOrder":
        followerPositionId = (await connector.modifyPendingOrder(action)).orderId;
        break;
      case "cancelOrder":
        // The login lets MT4 find a cancel already made in the account's history (docs/connectors.md).
        followerPositionId = (await connector.cancelPendingOrder({ requestId: action.requestId, orderId: action.orderId, login })).orderId;
        break;
    }
  } catch (error) {
    if (error instanceof ConnectorError && REFUSED.has(error.code)) {
      if (await ledger.settle(deps.db, row.requestId, deps.nodeId, { state: "failed", reason: error.message })) deps.failed({ ...row, reason: error.message });
      return "failed";
    }
    deps.log.warn({ err: error, requestId: row.requestId }, "copier: the follower's platform did not answer; the same request id is sent again");
    await ledger.releaseRow(deps.db, row.requestId, deps.nodeId).catch(() => undefined);
    return "unknown";
  }
  await ledger.settle(deps.db, row.requestId, deps.nodeId, { state: "done", followerPositionId });
  return "done";
}

/**
 * The follower's context could not be read (its platform away, not connected, slow to answer):
 * nothing was sent. The action is recorded `failed` with why and no follower action, under its
 * request id, so it shows (published once); it is not final: the engine's pass gives the link a
 * catch-up while it has such rows, and a decision made then takes the row over (ledger.insertRow).
 */
export async function recordFailure(
  deps: CopierDeps,
  link: EngineLink,
  follower: FollowerSettings,
  action: SourceAction,
  times: Times,
  error: unknown,
): Promise<void> {
  const reason = error instanceof Error ? error.message : String(error);
  const row = await ledger.insertRow(
    deps.db,
    {
      requestId: copyRequestId(link.id, followerKey(follower.account), action),
      organizationId: link.organizationId,
      linkId: link.id,
      followerPlatformId: follower.account.platformId,
      followerLogin: follower.account.login,
      sourceId: sourceIdOf(action),
      sourceAction: action.type,
      followerAction: null,
      state: "failed",
      reason,
      sourceTime: new Date(times.sourceTime),
      receivedAt: new Date(times.receivedAt),
      decidedAt: new Date(),
    },
    0,
  );
  if (row) deps.failed(row);
}
