/**
 * A follower's copied pending order that fills on its own server (docs/trades-copier.md "Pending
 * orders that fill"): nothing is sent for the source's fill, but the ledger records which follower
 * position is the copy of the source's new position — a `done` row, follower action `open`,
 * source action `orderFilled`, under the request id an open of that position would have — so the
 * source's later partial closes, stop changes and close reach it, and the catch-up, the resync and
 * the divergence see it as the copy. The follower's position is found by its order: the position
 * that takes the order's ticket (MT4 keeps it, an MT5 position takes it), that names it
 * (`orderId`, where the connector says so), or that carries the order's tag (Toolbox's comment,
 * which the fill keeps). When the follower's order has not filled yet, the row waits without a
 * position; each pass (and any later action on the position) looks for it again.
 */
import { copyRequestId, followerKey, type SourceAction } from "../../../../core/copier/index.ts";
import type { FollowerSettings } from "../../../../core/schemas/copier.ts";
import { formatLots, type Position } from "../../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../../connectors/connector.ts";
import { operationTag } from "../../../connectors/operationOnce.ts";
import type { CopierDeps, EngineLink, Times } from "./copyOne.ts";
import * as ledger from "./ledgerRepository.ts";

/** The follower's open position its order `orderId` (placed with `placeRequestId`) opened, if any. */
export function filledBy(open: readonly Position[], orderId: string, placeRequestId: string | null): Position | undefined {
  const tag = placeRequestId ? operationTag(placeRequestId) : null;
  return open.find((p) => p.id === orderId || p.orderId === orderId) ?? (tag ? open.find((p) => p.tag === tag) : undefined);
}

/** Records the fill of a copied order (the follower's position when it is open already). */
export async function recordFill(
  deps: CopierDeps,
  link: EngineLink,
  follower: FollowerSettings,
  action: Extract<SourceAction, { type: "orderFilled" }>,
  times: Times,
  connector: TradePlatformConnector,
): Promise<void> {
  const { platformId, login } = follower.account;
  const order = (await ledger.copyStates(deps.db, link.id, platformId, login)).get(`order:${action.order.id}`);
  if (!order?.followerId) return;
  const link_: ledger.FillLink = { type: "fill", orderId: order.followerId, placeRequestId: order.openRequestId };
  const position = filledBy(await connector.openPositions(login), order.followerId, order.openRequestId);
  const requestId = copyRequestId(link.id, followerKey(follower.account), action);
  await ledger.insertRow(
    deps.db,
    {
      requestId,
      organizationId: link.organizationId,
      linkId: link.id,
      followerPlatformId: platformId,
      followerLogin: login,
      sourceId: `position:${action.position.id}`,
      sourceAction: "orderFilled",
      followerAction: "open",
      state: "done",
      action: link_,
      symbol: order.symbol,
      volume: order.volume === null ? null : formatLots(order.volume),
      sourceVolume: action.position.volume,
      followerPositionId: position?.id ?? null,
      sourceTime: new Date(times.sourceTime),
      receivedAt: new Date(times.receivedAt),
      decidedAt: new Date(),
    },
    0,
  );
  if (position) return;
  // The follower's own fill event may have come between the read and the insert: it renamed the placing row's order.
  const now = (await ledger.copyStates(deps.db, link.id, platformId, login)).get(`order:${action.order.id}`)?.followerId;
  if (now && now !== order.followerId) await ledger.setFillPosition(deps.db, requestId, now);
}

/** Looks again for the follower positions of the fills that had none (each pass, for the links this node works). */
export async function resolveFills(deps: CopierDeps, links: ReadonlyMap<string, EngineLink>): Promise<void> {
  const rows = await ledger.unresolvedFills(deps.db, [...links.keys()]);
  const byFollower = new Map<string, ledger.LedgerRow[]>();
  for (const row of rows) {
    const key = `${row.organizationId}|${row.followerPlatformId}|${row.followerLogin}`;
    (byFollower.get(key) ?? byFollower.set(key, []).get(key)!).push(row);
  }
  for (const group of byFollower.values()) {
    const first = group[0]!;
    const connector = await deps.connectorFor(first.organizationId, first.followerPlatformId);
    const open = await connector.openPositions(first.followerLogin);
    for (const row of group) {
      const fill = row.action as ledger.FillLink;
      const position = filledBy(open, fill.orderId, fill.placeRequestId);
      if (position) await ledger.setFillPosition(deps.db, row.requestId, position.id);
    }
  }
}
