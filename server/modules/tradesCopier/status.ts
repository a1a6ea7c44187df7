/**
 * The copier's status (GET /api/tradesCopier/status, docs/trades-copier.md "Status"): the
 * organization's links and followers as saved, with what the ledger says of them. A follower is
 * paused (link or follower disabled), failing (its last action sent was refused), suspended (a
 * risk stop suspended it: persisted by the engine until a member resumes it, or the daily loss
 * limit's day ends), close-only, or running — in that order of precedence.
 */
import { SKIP_REASON_TEXTS, type FollowerSettings, type FollowerSuspension } from "../../../core/schemas/copier.ts";
import type { CopierStatus, CopierTotals, FollowerState, Latency } from "../../../core/schemas/copierStatus.ts";
import type { DbOrTx } from "../../db/client.ts";
import { listLinks, platformsOf } from "./repository.ts";
import * as repo from "./statusRepository.ts";

export const STATUS_WINDOW_MS = 24 * 3_600_000;
export const BUCKET_SECONDS = 300;

const key = (linkId: string | null, platformId?: string | null, login?: string | null) => `${linkId ?? ""}|${platformId ?? ""}|${login ?? ""}`;
const EMPTY_STAGE = { count: 0, p50: null, p99: null };
const EMPTY_LATENCY: Latency = { eventToEngine: EMPTY_STAGE, decision: EMPTY_STAGE, sendToAck: EMPTY_STAGE, total: EMPTY_STAGE };

/** A skip reason's words, or the code as is when it is not one of the rules' reasons. */
export function skipText(reason: string | null): string | null {
  if (reason === null) return null;
  return (SKIP_REASON_TEXTS as Record<string, string>)[reason] ?? reason;
}

function stateOf(
  linkEnabled: boolean,
  settings: FollowerSettings,
  lastSent: repo.LastOutcomeRow | undefined,
  suspension: FollowerSuspension | undefined,
): { state: FollowerState; stateReason: string | null } {
  if (!linkEnabled) return { state: "paused", stateReason: "The link is disabled" };
  if (!settings.enabled) return { state: "paused", stateReason: "The follower is disabled" };
  if (lastSent?.state === "failed") return { state: "failing", stateReason: lastSent.reason ?? "The platform refused the last copy" };
  if (suspension) return { state: "suspended", stateReason: suspension.reason };
  if (settings.closeOnly) return { state: "closeOnly", stateReason: "No new positions; closes are still copied" };
  return { state: "running", stateReason: null };
}

export async function copierStatus(db: DbOrTx, organizationId: string, now = new Date()): Promise<CopierStatus> {
  const since = new Date(now.getTime() - STATUS_WINDOW_MS);
  const { dayStart, timeZone } = await repo.dayStartOf(db, organizationId, now);
  const [links, platforms, counts, latencies, series, lastSent] = await Promise.all([
    listLinks(db, organizationId),
    platformsOf(db, organizationId),
    repo.followerCounts(db, organizationId, dayStart),
    repo.latencies(db, organizationId, since),
    repo.latencySeries(db, organizationId, since, BUCKET_SECONDS),
    repo.lastSent(db, organizationId),
  ]);
  const nameOf = new Map(platforms.map((p) => [p.id, p.name]));
  const countsOf = new Map(counts.map((c) => [key(c.linkId, c.platformId, c.login), c]));
  const latencyOf = new Map(latencies.map((l) => [key(l.linkId, l.platformId, l.login), l.stages as Latency]));
  const sentOf = new Map(lastSent.map((r) => [key(r.linkId, r.platformId, r.login), r]));
  const totals: CopierTotals = { links: links.length, followers: 0, copiesToday: 0, failedToday: 0, p99: latencyOf.get(key(null))?.total.p99 ?? null };
  const out = links.map((link) => {
    const followers = link.followers.map((f) => {
      const k = key(link.id, f.account.platformId, f.account.login);
      const c = countsOf.get(k);
      const suspension = link.suspensions.find((s) => s.account.platformId === f.account.platformId && s.account.login === f.account.login);
      totals.followers += 1;
      totals.copiesToday += c?.copiesToday ?? 0;
      totals.failedToday += c?.failedToday ?? 0;
      return {
        account: f.account,
        platformName: nameOf.get(f.account.platformId) ?? "Unknown platform",
        enabled: f.enabled,
        ...stateOf(link.enabled, f, sentOf.get(k), suspension),
        suspendedAt: suspension?.at ?? null,
        suspendedUntil: suspension?.until ?? null,
        lastCopyAt: c?.lastCopyAt ?? null,
        copiesToday: c?.copiesToday ?? 0,
        failedToday: c?.failedToday ?? 0,
        skippedToday: c?.skippedToday ?? 0,
        pending: c?.pending ?? 0,
        latency: latencyOf.get(k) ?? EMPTY_LATENCY,
      };
    });
    return {
      id: link.id,
      name: link.name,
      enabled: link.enabled,
      source: { ...link.source, platformName: nameOf.get(link.source.platformId) ?? "Unknown platform" },
      followers,
      latency: latencyOf.get(key(link.id)) ?? EMPTY_LATENCY,
      series: series.filter((s) => s.linkId === link.id).map(({ at, copies, p50, p99 }) => ({ at, copies, p50, p99 })),
    };
  });
  return {
    asOf: now.toISOString(),
    dayStart: dayStart.toISOString(),
    timeZone,
    since: since.toISOString(),
    bucketSeconds: BUCKET_SECONDS,
    totals,
    links: out,
  };
}

/** The overview tile's figures (links, followers, copies and failures today, p99 of the whole copy), without the series. */
export async function copierTotals(db: DbOrTx, organizationId: string, now = new Date()): Promise<CopierTotals> {
  const { dayStart } = await repo.dayStartOf(db, organizationId, now);
  const [links, counts, latencies] = await Promise.all([
    listLinks(db, organizationId),
    repo.followerCounts(db, organizationId, dayStart),
    repo.latencies(db, organizationId, new Date(now.getTime() - STATUS_WINDOW_MS)),
  ]);
  const followers = new Set(links.flatMap((l) => l.followers.map((f) => key(l.id, f.account.platformId, f.account.login))));
  const mine = counts.filter((c) => followers.has(key(c.linkId, c.platformId, c.login)));
  return {
    links: links.length,
    followers: followers.size,
    copiesToday: mine.reduce((n, c) => n + c.copiesToday, 0),
    failedToday: mine.reduce((n, c) => n + c.failedToday, 0),
    p99: latencies.find((l) => l.linkId === null)?.stages.total.p99 ?? null,
  };
}
