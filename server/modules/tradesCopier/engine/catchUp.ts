/**
 * What the catch-up (./engine.ts) decides for one open source position and one follower, from
 * the ledger's record of it — each with the request id the live event would have had, so what
 * was already done is not done again:
 *  - its open, or, when the follower holds a copy of the order that opened it (MT4 and MT5
 *    positions keep their order's ticket), its fill (./fills.ts): never a second, market copy;
 *  - a partial close missed while no node worked the link: the source holds less than the ledger
 *    last recorded, so the copy is brought to its share of what the source holds now, under the
 *    request id of a partial close down to that volume (the last one missed: a repeat, or that
 *    event replayed later, finds the row and does nothing).
 *
 * `catchUpLink` runs it for every follower of a link at once, with the rest of a catch-up: the
 * source's waiting orders placed while no node worked the link, the copies of positions the source
 * closed meanwhile, and the copied orders whose source order left. The ledger is read once for the
 * whole link, and each action is decided for all the followers that need it in one fan-out
 * (./copyOne.ts copyToFollowers), so a catch-up of a thousand followers is a few statements, not
 * thousands, and a follower platform with a request limit (Match-Trader) is asked only for what
 * is missing.
 */
import { followerKey, type SourceAction } from "../../../../core/copier/index.ts";
import type { ClosedPosition, PendingOrder, Position, Timestamp } from "../../../../core/trading/index.ts";
import { copyToFollowers, type CopierDeps, type EngineFollower, type EngineLink, type Times } from "./copyOne.ts";
import * as ledger from "./ledgerRepository.ts";
import type { CopyState } from "./ledgerRepository.ts";

export function catchUpActions(position: Position, states: ReadonlyMap<string, CopyState>, addedAt: Timestamp, now: Timestamp): SourceAction[] {
  const state = states.get(`position:${position.id}`);
  const order = states.get(`order:${position.id}`);
  const actions: SourceAction[] = [];
  if (!state?.opened && order?.followerId) {
    const filled: PendingOrder = {
      id: position.id,
      login: position.login,
      symbol: position.symbol,
      type: position.side === "buy" ? "buyLimit" : "sellLimit",
      volume: position.volume,
      price: position.openPrice,
      sl: position.sl,
      tp: position.tp,
      expiration: null,
      placedTime: position.openTime,
      comment: "",
      reason: position.reason,
      native: { platform: "MT5", order: 0 },
    };
    actions.push({ type: "orderFilled", time: position.openTime, order: filled, position });
  } else {
    actions.push({ type: "open", time: position.openTime, position, existing: position.openTime < addedAt });
  }
  const last = state?.lastSourceVolume ?? null;
  if (state?.opened && last !== null && position.volume > 0 && position.volume < last) {
    actions.push({ type: "partialClose", time: now, position, closedVolume: last - position.volume });
  }
  return actions;
}

/** One action and the followers that need it. */
class Fanouts {
  private readonly groups = new Map<string, { action: SourceAction; times: Times; followers: EngineFollower[] }>();

  add(key: string, action: SourceAction, times: Times, follower: EngineFollower): void {
    const group = this.groups.get(key);
    if (group) group.followers.push(follower);
    else this.groups.set(key, { action, times, followers: [follower] });
  }

  async run(deps: CopierDeps, link: EngineLink): Promise<void> {
    for (const { action, times, followers } of this.groups.values()) await copyToFollowers(deps, link, followers, action, times);
    this.groups.clear();
  }
}

/** What tells two followers' catch-up actions apart (the same key: one fan-out). */
function keyOf(action: SourceAction): string {
  const id = "order" in action ? action.order.id : action.position.id;
  const extra = action.type === "open" ? String(action.existing === true) : action.type === "partialClose" ? String(action.closedVolume) : "";
  return `${action.type}:${id}:${extra}`;
}

export async function catchUpLink(
  deps: CopierDeps,
  link: EngineLink,
  source: { open: readonly Position[]; orders: readonly PendingOrder[] },
  now: Timestamp,
): Promise<void> {
  const openIds = new Set(source.open.map((p) => `position:${p.id}`));
  const orderIds = new Set(source.orders.map((o) => `order:${o.id}`));
  const statesOf = (states: Map<string, Map<string, CopyState>>, f: EngineFollower) => states.get(followerKey(f.account)) ?? new Map<string, CopyState>();
  const fanouts = new Fanouts();
  const known = await ledger.copyStatesOfLink(deps.db, link.id);
  for (const follower of link.followers) {
    const states = statesOf(known, follower);
    for (const position of source.open) {
      for (const action of catchUpActions(position, states, follower.addedAt, now)) {
        // An open already decided (done, sent, or refused) is not decided again; a pending one is the pass's to send again.
        if ((action.type === "open" || action.type === "orderFilled") && states.get(`position:${position.id}`)?.opened) continue;
        fanouts.add(keyOf(action), action, { sourceTime: action.time, receivedAt: now }, follower);
      }
    }
    // The source's waiting orders placed while no node worked the link: placed now (their own
    // time: a follower's maximum delay still applies), under the live event's request id.
    for (const order of source.orders) {
      if (states.get(`order:${order.id}`)?.opened) continue;
      fanouts.add(`place:${order.id}`, { type: "orderPlaced", time: order.placedTime, order }, { sourceTime: order.placedTime, receivedAt: now }, follower);
    }
  }
  await fanouts.run(deps, link);
  // Copies of positions the source closed meanwhile, and copied orders whose source order left the
  // book without filling into a position the source still holds (MT4 and MT5 keep the order's ticket).
  const after = await ledger.copyStatesOfLink(deps.db, link.id);
  for (const follower of link.followers) {
    const states = statesOf(after, follower);
    for (const state of states.values()) {
      if (!state.followerId || !state.sourceId.startsWith("position:") || openIds.has(state.sourceId)) continue;
      const id = state.sourceId.slice("position:".length);
      const closed = { id, login: link.sourceLogin, symbol: "", side: "buy", volume: 0, openTime: now, closeTime: now } as unknown as ClosedPosition;
      fanouts.add(`close:${id}`, { type: "close", time: now, position: closed }, { sourceTime: now, receivedAt: now }, follower);
    }
    const gone = [...states.values()].filter(
      (s) => s.followerId && s.sourceId.startsWith("order:") && !orderIds.has(s.sourceId) && !openIds.has(`position:${s.sourceId.slice("order:".length)}`),
    );
    if (gone.length === 0) continue;
    // Cancelled only if the follower's copy still waits (one that filled is the positions' business).
    const connector = await deps.connectorFor(link.organizationId, follower.account.platformId);
    const waiting = new Set((await connector.pendingOrders(follower.account.login)).map((o) => o.id));
    for (const state of gone) {
      if (!waiting.has(state.followerId!)) continue;
      const id = state.sourceId.slice("order:".length);
      const order = { id, login: link.sourceLogin, symbol: state.symbol ?? "", volume: state.volume ?? 0 } as unknown as PendingOrder;
      fanouts.add(`cancel:${id}`, { type: "orderCancelled", time: now, order }, { sourceTime: now, receivedAt: now }, follower);
    }
  }
  await fanouts.run(deps, link);
}
