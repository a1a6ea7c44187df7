/**
 * The copier engine (docs/trades-copier.md "The engine"; decision 0082-copier-engine). Each node:
 *  - holds a lease per copy link (./linkLeases.ts), taken and renewed every third of the lease's
 *    time to live; a link is worked only by the node holding its lease, and when a node dies its
 *    leases lapse and another node takes the links over;
 *  - follows the bus's `trade` events (a durable subscription per node: an event is acknowledged
 *    once the handler's promise settles, i.e. once the ledger rows it caused are written and their
 *    answers recorded); a source's events become source actions (./sourceTracker.ts) and each
 *    follower of each held link whose source it is gets its copy (./copyOne.ts), in the order of
 *    the source's events (one queue per source account);
 *  - on taking a link, after a `tradeGap` and at start, catches up: the source's open positions are
 *    read from its platform (MT4 chains walked back to their first ticket); each not yet decided
 *    for a follower is decided now (./catchUp.ts: an open, or the fill of the follower's copied
 *    order), a copy whose source holds less than the ledger last knew is brought to its share, and
 *    a follower's copy whose source position is gone is closed — all with the request ids the live
 *    events would have had;
 *  - hears its followers' own `orderFilled` events, and looks every pass for the positions of
 *    copied orders' fills not yet found (./fills.ts);
 *  - every pass, re-sends the pending ledger rows of its links whose lease ran out (a crash between
 *    the ledger write and the answer, a lost answer) with their own request ids, and checks the
 *    risk stops of its links' followers (./riskStops.ts, at most every few seconds each).
 */
import { followerKey, type SourceAction } from "../../../../core/copier/index.ts";
import type { TradeEvent } from "../../../../core/trading/index.ts";
import type { EventBus } from "../../../events/bus.ts";
import type { BusMessage, BusSubscription, DomainEvent } from "../../../events/types.ts";
import { copyToFollowers, resend, send, type CopierDeps, type EngineLink } from "./copyOne.ts";
import { catchUpLink } from "./catchUp.ts";
import { resolveFills } from "./fills.ts";
import * as ledger from "./ledgerRepository.ts";
import { loadLinks } from "./engineRepository.ts";
import { RiskWatch } from "./riskStops.ts";
import { acquireLinkLease, releaseLinkLease, renewLinkLease, type LinkLease } from "./linkLeaseRepository.ts";
import { chainRootsOf, SourceTracker } from "./sourceTracker.ts";

export interface CopierEngineOptions extends CopierDeps {
  bus: EventBus;
  /** How long a link lease lasts unless renewed; renewed every third of it (at most every second). */
  ttlMs: number;
  /**
   * The durable subscription's name (NATS: resumes after a restart where the node stopped); only
   * for a node with a stable NODE_ID, so random per-process ids leave no consumers behind.
   */
  durable?: string;
  /** How often one follower's risk stops are checked on the pass, at most (./riskStops.ts RISK_CHECK_MS). */
  riskCheckMs?: number;
}

const keyOf = (platformId: string, login: string) => `${platformId}:${login}`;
/** How often, at most, in passes, a link's actions never decided (a follower's platform did not answer) are tried again. */
const UNREAD_RETRY_PASSES = 10;

export class CopierEngine {
  private links = new Map<string, EngineLink>();
  private readonly held = new Map<string, LinkLease>();
  private readonly trackers = new Map<string, SourceTracker>();
  private readonly queues = new Map<string, Promise<void>>();
  /** When each link's catch-up was last given for its actions never decided. */
  private readonly unreadRetried = new Map<string, number>();
  /** Time between two passes: a third of the lease's time, 100 ms to 1 s. */
  private get passMs(): number {
    return Math.min(1000, Math.max(100, Math.floor(this.options.ttlMs / 3)));
  }
  private subscription: BusSubscription | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private passing: Promise<void> | null = null;
  private stopped = false;
  private readonly risk: RiskWatch;

  constructor(private readonly options: CopierEngineOptions) {
    this.risk = new RiskWatch(options, send, options.riskCheckMs);
  }

  start(): void {
    // The durable subscription waits for the handler's promise before it acknowledges the event.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    this.subscription = this.options.bus.subscribe({ types: ["trade", "tradeGap"] }, (message) => this.handle(message), {
      ...(this.options.durable ? { durable: this.options.durable } : {}),
    });
    this.timer = setInterval(() => void this.pass(), this.passMs);
    this.timer.unref?.();
    void this.pass();
  }

  /** The links this node works now (tests). */
  holds(linkId: string): boolean {
    return this.held.has(linkId);
  }

  /** One pass now: links read again, leases taken or renewed, expired pending rows sent again. */
  pass(): Promise<void> {
    this.passing ??= this.runPass().finally(() => (this.passing = null));
    return this.passing;
  }

  /** Resolves once every source's queued work is done (tests). */
  async settled(): Promise<void> {
    await this.passing;
    await this.risk.settled();
    for (;;) {
      const pending = [...this.queues.values()];
      await Promise.all(pending);
      if ([...this.queues.values()].every((q, i) => q === pending[i]) && pending.length === this.queues.size) return;
    }
  }

  /** Checks the risk stops of every follower of the links held now, due or not (tests; the pass does it every few seconds). */
  checkRiskStops(): Promise<void> {
    return this.risk.pass(this.heldLinks(), (link, work) => this.enqueue(keyOf(link.sourcePlatformId, link.sourceLogin), work), true);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.subscription?.close();
    await this.passing?.catch(() => undefined);
    await this.risk.settled();
    await Promise.all(this.queues.values());
    await Promise.all([...this.held.values()].map((lease) => releaseLinkLease(this.options.db, lease).catch(() => undefined)));
    this.held.clear();
  }

  private async runPass(): Promise<void> {
    if (this.stopped) return;
    const { db, nodeId, ttlMs, log } = this.options;
    try {
      const links = await loadLinks(db);
      const previous = this.links;
      this.links = new Map(links.map((l) => [l.id, l]));
      // A follower added to a link this node works: caught up now (the source's open positions, under
      // its copyExistingPositions), not at the next restart or gap. The others' decisions are in the ledger already.
      for (const link of links) {
        const before = previous.get(link.id);
        if (!before || !this.held.has(link.id)) continue;
        const known = new Set(before.followers.map((f) => followerKey(f.account)));
        if (link.followers.some((f) => !known.has(followerKey(f.account)))) {
          void this.enqueue(keyOf(link.sourcePlatformId, link.sourceLogin), () => this.catchUp(link));
        }
      }
      for (const [linkId, lease] of this.held) {
        if (this.links.has(linkId)) continue;
        this.held.delete(linkId);
        void releaseLinkLease(db, lease).catch(() => undefined);
      }
      for (const link of links) {
        if (this.stopped) return;
        const lease = this.held.get(link.id);
        if (lease) {
          if (await renewLinkLease(db, lease, ttlMs)) continue;
          this.held.delete(link.id);
          log.warn({ linkId: link.id }, "copier: the link's lease lapsed; another node works it");
        }
        const taken = await acquireLinkLease(db, link.id, nodeId, ttlMs);
        if (!taken) continue;
        this.held.set(link.id, taken);
        log.info({ linkId: link.id, epoch: taken.epoch }, "copier: this node works the link");
        void this.enqueue(keyOf(link.sourcePlatformId, link.sourceLogin), () => this.catchUp(link));
      }
      const heldLinks = new Map([...this.held.keys()].flatMap((id) => (this.links.has(id) ? [[id, this.links.get(id)!] as const] : [])));
      await resolveFills(this.options, heldLinks).catch((err: unknown) => log.warn({ err }, "copier: fills could not be linked; the next pass tries again"));
      const expired = await ledger.expiredPending(db, [...this.held.keys()]);
      for (const row of expired) {
        const link = this.links.get(row.linkId);
        if (!link) continue;
        void this.enqueue(keyOf(link.sourcePlatformId, link.sourceLogin), () => resend(this.options, row));
      }
      void this.risk.pass(this.heldLinks(), (link, work) => this.enqueue(keyOf(link.sourcePlatformId, link.sourceLogin), work));
      // Actions never decided (a follower's platform did not answer): the link's catch-up decides them
      // again, at most once per UNREAD_RETRY_PASSES passes per link.
      const now = Date.now();
      const due = [...this.held.keys()].filter((id) => (this.unreadRetried.get(id) ?? 0) + UNREAD_RETRY_PASSES * this.passMs <= now);
      for (const id of await ledger.linksWithUnread(db, due)) {
        const link = this.links.get(id);
        if (!link) continue;
        this.unreadRetried.set(id, now);
        void this.enqueue(keyOf(link.sourcePlatformId, link.sourceLogin), () => this.catchUp(link));
      }
    } catch (err) {
      log.warn({ err }, "copier: a pass failed; the next one tries again");
    }
  }

  private heldLinks(): EngineLink[] {
    return [...this.held.keys()].flatMap((id) => this.links.get(id) ?? []);
  }

  /** The links this node holds whose source is this account. */
  private heldLinksOf(platformId: string, login?: string): EngineLink[] {
    const out: EngineLink[] = [];
    for (const id of this.held.keys()) {
      const link = this.links.get(id);
      if (link && link.sourcePlatformId === platformId && (login === undefined || link.sourceLogin === login)) out.push(link);
    }
    return out;
  }

  private handle(message: BusMessage<Extract<DomainEvent, { type: "trade" | "tradeGap" }>>): Promise<void> | undefined {
    const receivedAt = Date.now();
    const { event } = message;
    if (event.type === "tradeGap") {
      const links = this.heldLinksOf(event.platformId);
      return links.length === 0
        ? undefined
        : Promise.all(links.map((l) => this.enqueue(keyOf(l.sourcePlatformId, l.sourceLogin), () => this.catchUp(l)))).then(() => undefined);
    }
    const login = event.event.login;
    const fill = this.followerFill(event.platformId, event.event);
    if (this.heldLinksOf(event.platformId, login).length === 0) return fill;
    return this.enqueue(keyOf(event.platformId, login), () => this.apply(event.platformId, event.event, receivedAt));
  }

  /** A follower's copied order filled on its own server: the ledger names the position it opened (./fills.ts). */
  private followerFill(platformId: string, event: TradeEvent): Promise<void> | undefined {
    if (event.type !== "orderFilled") return undefined;
    const links = [...this.held.keys()].filter((id) =>
      this.links.get(id)?.followers.some((f) => f.account.platformId === platformId && f.account.login === event.login),
    );
    if (links.length === 0) return undefined;
    return ledger
      .followerOrderFilled(this.options.db, links, platformId, event.login, event.order.id, event.position.id)
      .catch((err: unknown) => this.options.log.warn({ err }, "copier: a follower's fill could not be recorded; the next pass looks for it"));
  }

  /** Runs `work` after the source's earlier work, so each follower sees the source's actions in order. */
  private enqueue(key: string, work: () => Promise<void>): Promise<void> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous.then(work).catch((err: unknown) => this.options.log.error({ err, source: key }, "copier: work on a source failed"));
    this.queues.set(key, next);
    void next.finally(() => {
      if (this.queues.get(key) === next) this.queues.delete(key);
    });
    return next;
  }

  /** The source's tracker, loaded from its platform the first time. */
  private async trackerOf(link: EngineLink, reload = false): Promise<SourceTracker> {
    const key = keyOf(link.sourcePlatformId, link.sourceLogin);
    let tracker = this.trackers.get(key);
    if (tracker && !reload) return tracker;
    const connector = await this.options.connectorFor(link.organizationId, link.sourcePlatformId);
    const open = await connector.openPositions(link.sourceLogin);
    tracker ??= new SourceTracker(link.sourceLogin);
    tracker.load(open, await chainRootsOf(connector, link.sourceLogin, open));
    this.trackers.set(key, tracker);
    return tracker;
  }

  private async apply(platformId: string, event: TradeEvent, receivedAt: number): Promise<void> {
    const links = this.heldLinksOf(platformId, event.login);
    if (links.length === 0) return;
    const tracker = await this.trackerOf(links[0]!);
    for (const action of tracker.actionsOf(event)) {
      for (const link of links) await this.copyToAll(link, action, { sourceTime: action.time, receivedAt });
    }
  }

  private async copyToAll(link: EngineLink, action: SourceAction, times: { sourceTime: number; receivedAt: number }): Promise<void> {
    await copyToFollowers(this.options, link, link.followers, action, times);
  }

  /**
   * Catch-up for a link (taken over, a gap, a start): every open source position not yet decided
   * for a follower is decided now; a copy whose source position is gone is closed. The request
   * ids are those of the live events, so nothing already done is done again.
   */
  private async catchUp(link: EngineLink): Promise<void> {
    const tracker = await this.trackerOf(link, true);
    const source = await this.options.connectorFor(link.organizationId, link.sourcePlatformId);
    const orders = await source.pendingOrders(link.sourceLogin);
    await resolveFills(this.options, new Map([[link.id, link]])).catch(() => undefined);
    await catchUpLink(this.options, link, { open: tracker.open(), orders }, Date.now());
  }
}
