/**
 * The follower's risk stops in the engine (docs/trades-copier.md "Risk stops and close-only";
 * decision 0086-copier-risk-stops). The rules are pure (core/copier/risk.ts); here the figures are
 * read and the stops acted on:
 *  - before each new exposure (copyOne's context): today's P/L of the follower's copies (realised
 *    from its platform's deals since the organization's midnight, plus the open copies' floating
 *    P/L) when it has a daily loss limit, and its suspension, if any;
 *  - a tripped stop suspends the follower, persisted beside its settings (copy_followers), once
 *    (the update only takes a follower that is not suspended), and publishes `copierFailure`;
 *    with `closeAndSuspend` its copies are closed (and its copied pending orders cancelled)
 *    through the ledger, under request ids of the link, follower, source and suspension time, so a
 *    retry or another node closes nothing twice;
 *  - on the engine's pass, every few seconds per follower with a stop set, the stops are checked
 *    again from the follower's equity and P/L, so a stop acts while the market moves and no source
 *    signal comes; a suspended closeAndSuspend follower's closes are carried on (after a crash);
 *    a daily suspension whose day is over is lifted.
 */
import {
  dailyProfitOf,
  followerKey,
  riskCloseRequestId,
  riskStopOf,
  suspensionAt,
  suspensionText,
  suspensionUntil,
  type DailyProfit,
  type FollowerAction,
  type RiskStopTrip,
  type SourceAction,
  type Suspension,
} from "../../../../core/copier/index.ts";
import type { FollowerSettings } from "../../../../core/schemas/copier.ts";
import { moneyToDecimal, type Money } from "../../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../../connectors/connector.ts";
import { operationTag } from "../../../connectors/operationOnce.ts";
import type { CopierDeps, EngineFollower, EngineLink } from "./copyOne.ts";
import * as ledger from "./ledgerRepository.ts";
import * as repo from "./riskRepository.ts";

/** copyOne's `send` (passed in: this file is below copyOne, which calls it). */
export type SendRow = (deps: CopierDeps, row: ledger.LedgerRow, connector: TradePlatformConnector) => Promise<unknown>;

/** How often the pass checks one follower's stops (its equity, its day's P/L), at most. */
export const RISK_CHECK_MS = 3000;

const isOpening = (action: SourceAction) => action.type === "open" || action.type === "orderPlaced" || action.type === "orderFilled";

/** Today's P/L of this link's copies on the follower, with the day's bounds (the organization's zone). */
export async function dailyProfitFor(
  deps: CopierDeps,
  link: EngineLink,
  follower: FollowerSettings,
  connector: TradePlatformConnector,
  now = Date.now(),
): Promise<DailyProfit & { dayStart: number; nextDayStart: number }> {
  const { platformId, login } = follower.account;
  const day = await repo.dayOf(deps.db, link.organizationId, new Date(now));
  const [deals, open, copies] = await Promise.all([
    // A minute past now: the follower server's clock may run a little ahead of ours.
    connector.dealHistory({ login, from: day.dayStart, to: now + 60_000 }),
    connector.openPositions(login),
    repo.copiedPositionIds(deps.db, link.id, platformId, login),
  ]);
  return { ...dailyProfitOf({ deals, open, copies, dayStart: day.dayStart }), ...day };
}

/** What copyOne's context needs of the risk stops for this action: the suspension in force and today's P/L (only for new exposure). */
export async function riskContextFor(
  deps: CopierDeps,
  link: EngineLink,
  follower: FollowerSettings,
  action: SourceAction,
  connector: TradePlatformConnector,
): Promise<{ dailyProfit: Money; suspension: RiskStopTrip | null }> {
  return riskContextNow(link, follower, action) ?? { dailyProfit: (await dailyProfitFor(deps, link, follower, connector)).total, suspension: null };
}

/** The same, when it needs no read (no daily loss limit, or a suspension in force); null when today's P/L must be read. */
export function riskContextNow(
  link: EngineLink,
  follower: FollowerSettings,
  action: SourceAction,
): { dailyProfit: Money; suspension: RiskStopTrip | null } | null {
  if (!isOpening(action)) return { dailyProfit: 0, suspension: null };
  const suspension = suspensionAt(engineFollower(link, follower)?.suspension ?? null, Date.now());
  if (suspension) return { dailyProfit: 0, suspension: { stop: suspension.stop, action: suspension.action } };
  if (!follower.dailyLossLimit) return { dailyProfit: 0, suspension: null };
  return null;
}

function engineFollower(link: EngineLink, follower: FollowerSettings): EngineFollower | undefined {
  // The engine passes the link's own follower (with its suspension): no search through a thousand.
  if ((follower as Partial<EngineFollower>).addedAt !== undefined) return follower as EngineFollower;
  return link.followers.find((f) => f.account.platformId === follower.account.platformId && f.account.login === follower.account.login);
}

const amount = (n: number) => moneyToDecimal(Math.round(n * 100));

/** Why, with the figures. */
function reasonOf(trip: RiskStopTrip, follower: FollowerSettings, figures: { equity?: Money; dailyProfit?: Money }): string {
  const figure =
    trip.stop === "equityFloor"
      ? `equity ${figures.equity === undefined ? "?" : moneyToDecimal(figures.equity)} below the floor of ${amount(follower.equityFloor?.amount ?? 0)}`
      : `today's loss on copies ${figures.dailyProfit === undefined ? "?" : moneyToDecimal(-figures.dailyProfit)} at or above the limit of ${amount(follower.dailyLossLimit?.amount ?? 0)}`;
  return `${suspensionText(trip)} (${figure})`;
}

/**
 * A stop tripped (at a new copy, or on the pass): the follower is suspended (once: a follower
 * already suspended is left as is), `copierFailure` is published, and with closeAndSuspend its
 * copies are closed.
 */
export async function tripRiskStop(
  deps: CopierDeps,
  link: EngineLink,
  follower: FollowerSettings,
  trip: RiskStopTrip,
  figures: { equity?: Money; dailyProfit?: Money },
  send: SendRow,
): Promise<void> {
  const { platformId, login } = follower.account;
  const { nextDayStart } = await repo.dayOf(deps.db, link.organizationId, new Date());
  const reason = reasonOf(trip, follower, figures);
  const suspension = await repo.suspend(deps.db, link.id, platformId, login, { ...trip, reason, until: suspensionUntil(trip.stop, nextDayStart) });
  if (!suspension) return;
  const mine = engineFollower(link, follower);
  if (mine) mine.suspension = suspension;
  deps.log.warn({ linkId: link.id, platformId, login, stop: trip.stop, action: trip.action }, "copier: a risk stop suspended a follower");
  deps.notify?.({
    type: "copierFailure",
    organizationId: link.organizationId,
    platformId,
    linkId: link.id,
    message: `Account ${login}: ${reason}.`,
    id: `copierSuspended:${link.id}:${followerKey(follower.account)}:${suspension.at}`,
  });
  if (suspension.action === "closeAndSuspend") await closeCopies(deps, link, follower, suspension, send);
}

/**
 * Closes the follower's copies (and cancels its copied pending orders) for a closeAndSuspend
 * suspension, through the ledger: a copy whose close was decided before (by this call, a retry,
 * another node) is left to that row (a pending one is re-sent by the engine's pass).
 */
export async function closeCopies(deps: CopierDeps, link: EngineLink, follower: FollowerSettings, suspension: Suspension, send: SendRow): Promise<void> {
  const { platformId, login } = follower.account;
  const connector = await deps.connectorFor(link.organizationId, platformId);
  const [states, open, orders] = await Promise.all([
    ledger.copyStates(deps.db, link.id, platformId, login),
    connector.openPositions(login),
    connector.pendingOrders(login),
  ]);
  const key = followerKey(follower.account);
  const work: Promise<unknown>[] = [];
  for (const state of states.values()) {
    if (!state.followerId) continue;
    const requestId = riskCloseRequestId(link.id, key, state.sourceId, suspension.at);
    let action: Extract<FollowerAction, { type: "close" | "cancelOrder" }> | null = null;
    if (state.sourceId.startsWith("order:")) {
      const order = orders.find((o) => o.id === state.followerId);
      if (order) action = { type: "cancelOrder", requestId, orderId: order.id };
    } else {
      const tag = state.openRequestId ? operationTag(state.openRequestId) : null;
      const p =
        open.find((x) => x.id === state.followerId) ??
        open.find((x) => x.previousId === state.followerId) ??
        (tag ? open.find((x) => x.tag === tag) : undefined);
      if (p) action = { type: "close", requestId, positionId: p.id, volume: p.volume, whole: true };
    }
    if (action) work.push(closeOne(deps, link, follower, connector, state.sourceId, action, suspension, send));
  }
  await Promise.all(work);
}

async function closeOne(
  deps: CopierDeps,
  link: EngineLink,
  follower: FollowerSettings,
  connector: TradePlatformConnector,
  sourceId: string,
  action: Extract<FollowerAction, { type: "close" | "cancelOrder" }>,
  suspension: Suspension,
  send: SendRow,
): Promise<void> {
  const now = new Date();
  const row = await ledger.insertRow(
    deps.db,
    {
      requestId: action.requestId,
      organizationId: link.organizationId,
      linkId: link.id,
      followerPlatformId: follower.account.platformId,
      followerLogin: follower.account.login,
      sourceId,
      sourceAction: "riskStop",
      followerAction: action.type,
      state: "pending",
      action,
      leaseHolder: deps.nodeId,
      ...ledger.describe(action),
      sourceTime: new Date(suspension.at),
      receivedAt: now,
      decidedAt: now,
    },
    ledger.leaseMsOf(connector),
  );
  if (row) await send(deps, row, connector);
}

/** The risk stops on the engine's pass: each follower with a stop (or a suspension) of the links held, at most every `everyMs`. */
export class RiskWatch {
  private readonly checkedAt = new Map<string, number>();
  private running: Promise<void> | null = null;

  constructor(
    private readonly deps: CopierDeps,
    private readonly send: SendRow,
    private readonly everyMs = RISK_CHECK_MS,
  ) {}

  /** One check of the due followers (all of them with `force`); `serial` runs work in the source's queue. */
  pass(links: readonly EngineLink[], serial: (link: EngineLink, work: () => Promise<void>) => Promise<void>, force = false): Promise<void> {
    // A forced check waits for the pass under way (whose followers may not have been due), then runs.
    if (this.running) return force ? this.running.then(() => this.pass(links, serial, true)) : this.running;
    const running = this.run(links, serial, force).finally(() => {
      if (this.running === running) this.running = null;
    });
    this.running = running;
    return running;
  }

  settled(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async run(links: readonly EngineLink[], serial: (link: EngineLink, work: () => Promise<void>) => Promise<void>, force: boolean) {
    const now = Date.now();
    const work: Promise<void>[] = [];
    for (const link of links) {
      if (!link.enabled) continue;
      for (const follower of link.followers) {
        if (!follower.enabled || (!follower.equityFloor && !follower.dailyLossLimit && !follower.suspension)) continue;
        const key = `${link.id}|${followerKey(follower.account)}`;
        if (!force && now - (this.checkedAt.get(key) ?? 0) < this.everyMs) continue;
        this.checkedAt.set(key, now);
        work.push(
          this.check(link, follower, serial).catch((err: unknown) =>
            this.deps.log.warn({ err, linkId: link.id, login: follower.account.login }, "copier: a risk stop could not be checked; the next pass tries again"),
          ),
        );
      }
    }
    await Promise.all(work);
  }

  private async check(link: EngineLink, follower: EngineFollower, serial: (link: EngineLink, work: () => Promise<void>) => Promise<void>) {
    const { deps } = this;
    const { platformId, login } = follower.account;
    // Read afresh (a member may have resumed it since the links were read); cheap: one row by its key.
    const suspension = await repo.suspensionOf(deps.db, link.id, platformId, login);
    follower.suspension = suspension;
    if (suspension) {
      if (suspensionAt(suspension, Date.now())) {
        if (suspension.action === "closeAndSuspend") await serial(link, () => closeCopies(deps, link, follower, suspension, this.send));
        return;
      }
      // The daily loss limit's day is over: the follower copies again (checked afresh below).
      if (await repo.liftLapsed(deps.db, link.id, platformId, login, suspension.at))
        deps.log.info({ linkId: link.id, platformId, login }, "copier: a daily suspension lifted at the day's end");
      follower.suspension = null;
    }
    if (!follower.equityFloor && !follower.dailyLossLimit) return;
    const connector = await deps.connectorFor(link.organizationId, platformId);
    const [account, daily] = await Promise.all([
      follower.equityFloor ? connector.getAccount(login) : null,
      follower.dailyLossLimit ? dailyProfitFor(deps, link, follower, connector) : null,
    ]);
    const figures = { ...(account ? { equity: account.equity } : {}), ...(daily ? { dailyProfit: daily.total } : {}) };
    const trip = riskStopOf(follower, { equity: account?.equity ?? Number.MAX_SAFE_INTEGER, dailyProfit: daily?.total ?? 0 });
    if (trip) await serial(link, () => tripRiskStop(deps, link, follower, trip, figures, this.send));
  }
}
