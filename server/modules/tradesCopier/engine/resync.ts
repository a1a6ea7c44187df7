/**
 * A follower's resync (GET/POST /api/tradesCopier/links/:linkId/followers/:platformId/:login/resync):
 * the plan compares the source's open positions with the follower's copies (the ledger's, found
 * on the follower's platform by id, MT4 chain or tag): open what the source has and the follower
 * lacks (sized by the copy rules, as a new open now), close what the follower copied that the
 * source no longer has. Carrying it out goes through the ledger like any copy, with request ids
 * derived from "resync", the source position and the follower position it replaces or closes, so
 * a repeat (a double click, a retry) does nothing twice.
 */
import { closeToShare, copyShare, decide, findSymbol, followerKey, stableId, type FollowerAction } from "../../../../core/copier/index.ts";
import type { FollowerSettings } from "../../../../core/schemas/copier.ts";
import type { ResyncAction, ResyncResult } from "../../../../core/schemas/copierResync.ts";
import { formatLots, type Position } from "../../../../core/trading/index.ts";
import { operationTag } from "../../../connectors/operationOnce.ts";
import { viaConnector } from "../../../errors.ts";
import { contextFor, resend, send, symbolsOf, type CopierDeps, type EngineLink } from "./copyOne.ts";
import { filledBy } from "./fills.ts";
import { chainRootsOf } from "./sourceTracker.ts";
import * as ledger from "./ledgerRepository.ts";

interface Step {
  plan: ResyncAction;
  action: FollowerAction;
  /** What the source holds now: the share the copy opened or brought down is of it. */
  sourceVolume?: number;
}

function resyncId(link: EngineLink, follower: FollowerSettings, sourceId: string, kind: string, replaces: string | null): string {
  return stableId(`resync|${link.id}|${followerKey(follower.account)}|${sourceId}|${kind}|${replaces ?? "none"}`);
}

async function stepsOf(deps: CopierDeps, link: EngineLink, follower: FollowerSettings): Promise<Step[]> {
  const connector = await deps.connectorFor(link.organizationId, follower.account.platformId);
  const sourceConnector = await deps.connectorFor(link.organizationId, link.sourcePlatformId);
  const [sourceOpen, followerOpen, states] = await Promise.all([
    viaConnector(() => sourceConnector.openPositions(link.sourceLogin)),
    viaConnector(() => connector.openPositions(follower.account.login)),
    ledger.copyStates(deps.db, link.id, follower.account.platformId, follower.account.login),
  ]);
  // A copied order's fill whose follower order has not filled yet: the copy is on its way, not missing.
  const waiting = [...states.values()].some((s) => s.fill && s.followerId === null)
    ? new Set((await viaConnector(() => connector.pendingOrders(follower.account.login))).map((o) => o.id))
    : new Set<string>();
  const liveCopy = (state: ledger.CopyState | undefined): Position | undefined => {
    if (state?.fill && state.followerId === null) return filledBy(followerOpen, state.fill.orderId, state.fill.placeRequestId);
    if (!state?.followerId) return undefined;
    const tag = state.openRequestId ? operationTag(state.openRequestId) : null;
    return (
      followerOpen.find((p) => p.id === state.followerId) ??
      followerOpen.find((p) => p.previousId === state.followerId) ??
      (tag ? followerOpen.find((p) => p.tag === tag) : undefined)
    );
  };
  const [roots, symbols] = await Promise.all([viaConnector(() => chainRootsOf(sourceConnector, link.sourceLogin, sourceOpen)), symbolsOf(connector)]);
  const steps: Step[] = [];
  const covered = new Set<string>();
  for (const p of sourceOpen.filter((x) => x.login === link.sourceLogin).sort((a, b) => a.openTime - b.openTime)) {
    // MT4 re-issues a partly closed ticket: its copy is under the chain's first ticket.
    const sourceId = `position:${roots.get(p.id) ?? p.id}`;
    covered.add(sourceId);
    const state = states.get(sourceId);
    if (state?.fill && state.followerId === null && waiting.has(state.fill.orderId)) continue;
    const copy = liveCopy(state);
    if (copy) {
      // A copy bigger than its share of what the source holds now (a partial close it missed) is brought down to it.
      const symbol = findSymbol(symbols, copy.symbol);
      const share =
        state?.volume != null && state.sourceVolume != null ? copyShare({ volume: state.volume, sourceVolume: state.sourceVolume }, p.volume, symbol) : null;
      const part = share === null ? null : closeToShare(copy.volume, share, symbol);
      if (!part || part.whole) continue;
      const requestId = resyncId(link, follower, sourceId, `reduce:${share}`, copy.id);
      steps.push({
        plan: { kind: "reduce", sourceId, symbol: copy.symbol, side: copy.side, volume: formatLots(part.volume), followerPositionId: copy.id },
        action: { type: "close", requestId, positionId: copy.id, volume: part.volume, whole: false },
        sourceVolume: p.volume,
      });
      continue;
    }
    const position = { ...p, id: sourceId.slice("position:".length) };
    const ctx = await contextFor(deps, link, follower, { type: "open", time: Date.now(), position }, connector, sourceConnector);
    const decision = decide({ type: "open", time: Date.now(), position }, { ...follower, copyExistingPositions: true }, { ...ctx, linkEnabled: true });
    if (decision.kind !== "copy" || decision.action.type !== "open") continue;
    const requestId = resyncId(link, follower, sourceId, "open", state?.followerId ?? null);
    const action = { ...decision.action, requestId };
    steps.push({
      plan: { kind: "open", sourceId, symbol: action.symbol, side: action.side, volume: formatLots(action.volume) },
      action,
      sourceVolume: p.volume,
    });
  }
  for (const state of states.values()) {
    if (!state.sourceId.startsWith("position:") || covered.has(state.sourceId)) continue;
    const copy = liveCopy(state);
    if (!copy) continue;
    const requestId = resyncId(link, follower, state.sourceId, "close", copy.id);
    steps.push({
      plan: { kind: "close", sourceId: state.sourceId, symbol: copy.symbol, side: copy.side, volume: formatLots(copy.volume), followerPositionId: copy.id },
      action: { type: "close", requestId, positionId: copy.id, volume: copy.volume, whole: true },
    });
  }
  return steps;
}

export async function resyncPlan(deps: CopierDeps, link: EngineLink, follower: FollowerSettings): Promise<{ actions: ResyncAction[] }> {
  return { actions: (await stepsOf(deps, link, follower)).map((s) => s.plan) };
}

/** Carries the plan out, one action after another, through the ledger; each answers with its row's state. */
export async function executeResync(deps: CopierDeps, link: EngineLink, follower: FollowerSettings): Promise<ResyncResult> {
  const steps = await stepsOf(deps, link, follower);
  const connector = await deps.connectorFor(link.organizationId, follower.account.platformId);
  const out: ResyncResult["actions"] = [];
  for (const { plan, action, sourceVolume } of steps) {
    const now = new Date();
    const row = await ledger.insertRow(
      deps.db,
      {
        requestId: action.requestId,
        organizationId: link.organizationId,
        linkId: link.id,
        followerPlatformId: follower.account.platformId,
        followerLogin: follower.account.login,
        sourceId: plan.sourceId,
        sourceAction: plan.kind,
        sourceVolume: sourceVolume ?? null,
        followerAction: action.type,
        state: "pending",
        action,
        leaseHolder: deps.nodeId,
        ...ledger.describe(action),
        sourceTime: now,
        receivedAt: now,
        decidedAt: now,
      },
      ledger.leaseMsOf(connector),
    );
    if (row) await send(deps, row, connector);
    else {
      const existing = await ledger.findRow(deps.db, action.requestId);
      if (existing?.state === "pending") await resend(deps, existing);
    }
    const settled = await ledger.findRow(deps.db, action.requestId);
    out.push({ ...plan, state: settled?.state ?? "pending", reason: settled?.reason ?? null });
  }
  return { actions: out };
}
