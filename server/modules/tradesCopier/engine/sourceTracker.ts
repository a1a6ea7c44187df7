/**
 * Turns one source account's trade events into the copy rules' source actions
 * (core/copier/types.ts SourceAction), keeping what it needs of the source's open positions:
 *  - a fill's `positionOpened` (it names its order) is not an open of its own: `orderFilled` is;
 *  - MT4 closes part of a trade by closing its ticket (comment "to #124") and re-issuing the rest
 *    as ticket 124 (`previousId`): the pair is one partial close of the first ticket, and what
 *    follows on 124 belongs to it too (`rootOf`), so the follower's copy is found by one source id;
 *  - a partial close's closed volume is what the position held before less what remains.
 * Events seen twice give the same actions (and so the same request ids): the ledger dedupes them.
 */
import { chainRoots, type SourceAction } from "../../../../core/copier/index.ts";
import type { ClosedPosition, Position, TradeEvent } from "../../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../../connectors/connector.ts";

const REISSUED = /^to #(\S+)/;

export class SourceTracker {
  /** Open positions by their own id. */
  private readonly positions = new Map<string, Position>();
  /** A re-issued ticket → the first ticket of its chain. */
  private readonly roots = new Map<string, string>();

  constructor(readonly login: string) {}

  /**
   * The source's open positions as read from the platform (a start, a takeover, a gap), with the
   * first ticket of each MT4 chain when known (core/copier/chain.ts, from the source's exits);
   * without it a re-issued ticket is taken as continuing the ticket it names.
   */
  load(open: readonly Position[], roots: ReadonlyMap<string, string> = new Map()): void {
    for (const p of open) {
      if (p.login !== this.login) continue;
      this.positions.set(p.id, p);
      const root = roots.get(p.id);
      if (root !== undefined && root !== p.id) this.roots.set(p.id, root);
      else if (p.previousId && !this.roots.has(p.id)) this.roots.set(p.id, this.rootOf(p.previousId));
    }
  }

  /** The first ticket of a position's chain (itself everywhere but MT4 after a partial close). */
  rootOf(id: string): string {
    return this.roots.get(id) ?? id;
  }

  /** The source's open positions now, each under its chain's first id. */
  open(): Position[] {
    return [...this.positions.values()].map((p) => ({ ...p, id: this.rootOf(p.id) }));
  }

  actionsOf(event: TradeEvent): SourceAction[] {
    if (event.login !== this.login) return [];
    switch (event.type) {
      case "positionOpened": {
        const p = event.position;
        const known = this.positions.has(p.id);
        this.positions.set(p.id, p);
        if (p.previousId) {
          if (!this.roots.has(p.id)) this.roots.set(p.id, this.rootOf(p.previousId));
          return [];
        }
        if (p.orderId || known) return [];
        return [{ type: "open", time: event.time, position: p }];
      }
      case "positionModified": {
        const p = event.position;
        const before = this.positions.get(p.id);
        this.positions.set(p.id, p);
        const position = { ...p, id: this.rootOf(p.id) };
        if (event.change === "stops") return [{ type: "stops", time: event.time, position }];
        const closedVolume = before ? before.volume - p.volume : 0;
        if (closedVolume <= 0) return [];
        return [{ type: "partialClose", time: event.time, position, closedVolume }];
      }
      case "positionClosed": {
        const closed = event.position;
        const before = this.positions.get(closed.id);
        this.positions.delete(closed.id);
        const root = this.rootOf(closed.id);
        const reissued = REISSUED.exec(closed.comment);
        if (reissued) {
          const next = reissued[1]!;
          this.roots.set(next, root);
          const held = before?.volume ?? closed.volume;
          const remaining = held - closed.volume;
          if (!before || remaining <= 0) return [];
          return [{ type: "partialClose", time: event.time, position: { ...before, id: root, volume: remaining }, closedVolume: closed.volume }];
        }
        this.roots.delete(closed.id);
        const position: ClosedPosition = { ...closed, id: root };
        return [{ type: "close", time: event.time, position }];
      }
      case "orderPlaced":
        return [{ type: "orderPlaced", time: event.time, order: event.order }];
      case "orderModified":
        return [{ type: "orderModified", time: event.time, order: event.order }];
      case "orderCancelled":
        return [{ type: "orderCancelled", time: event.time, order: event.order }];
      case "orderFilled":
        this.positions.set(event.position.id, event.position);
        return [{ type: "orderFilled", time: event.time, order: event.order, position: event.position }];
      default:
        return [];
    }
  }
}

/**
 * The first ticket of each re-issued MT4 position's chain (core/copier/chain.ts), from the
 * source's exits since the oldest such position opened (a re-issued ticket keeps the trade's
 * open time). Nothing is read when no position continues another.
 */
export async function chainRootsOf(connector: TradePlatformConnector, login: string, open: readonly Position[]): Promise<Map<string, string>> {
  const reissued = open.filter((p) => p.login === login && p.previousId !== null);
  if (reissued.length === 0) return new Map();
  const from = Math.min(...reissued.map((p) => p.openTime)) - 60_000;
  const deals = await connector.dealHistory({ login, from, to: Date.now() + 60_000 });
  return chainRoots(
    reissued,
    deals.filter((d) => d.entry === "out"),
  );
}
