/**
 * Divergence between a link's source and each follower (GET /api/tradesCopier/status/divergence,
 * docs/trades-copier.md "Status"): the source's live open positions, the follower's live open
 * positions, and the ledger's record of which follower position copies which source position
 * (done `open` rows). A copy whose source is still open but which the follower no longer holds is
 * `missing` (closed by hand, stopped out); a copy the follower still holds of a closed source
 * position is `extra`. Positions the follower opened itself are not the copier's and never
 * count. One read of open positions per platform (openPositionsOf, all the logins at once).
 */
import type { AccountRef } from "../../../core/schemas/copier.ts";
import type { CopierDivergence, DivergenceItem, FollowerDivergence } from "../../../core/schemas/copierStatus.ts";
import { copiesProfitOf } from "../../../core/copier/profit.ts";
import { moneyToDecimal, type Money } from "../../../core/trading/money.ts";
import type { Position } from "../../../core/trading/position.ts";
import { formatLots } from "../../../core/trading/volume.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import type { DbOrTx } from "../../db/client.ts";
import { listLinks } from "./repository.ts";
import { copiedPositions, copiesDeals, type CopiedPositionRow } from "./statusRepository.ts";

export interface DivergencePlatforms {
  connectorFor(organizationId: string, platformId: string): Promise<TradePlatformConnector>;
}

type Read = { ok: true; positions: Position[] } | { ok: false; error: string };

/** Each platform's open positions of the given logins, read once; a platform that fails says why. */
async function readPlatforms(platforms: DivergencePlatforms, organizationId: string, logins: Map<string, Set<string>>): Promise<Map<string, Read>> {
  const entries = await Promise.all(
    [...logins].map(async ([platformId, set]): Promise<[string, Read]> => {
      try {
        const connector = await platforms.connectorFor(organizationId, platformId);
        const all = [...set];
        const positions: Position[] = [];
        for (let i = 0; i < all.length; i += 1000) positions.push(...(await connector.openPositionsOf(all.slice(i, i + 1000))));
        return [platformId, { ok: true, positions }];
      } catch (error) {
        return [platformId, { ok: false, error: error instanceof Error ? error.message : String(error) }];
      }
    }),
  );
  return new Map(entries);
}

/**
 * An open position found by its id or, for an MT4 partial close that re-issued the rest, by the
 * ticket it continues (one step: a chain of several partial closes is not followed).
 */
function liveOf(positions: readonly Position[]): (id: string) => Position | undefined {
  const byId = new Map(positions.map((p) => [p.id, p]));
  const byPrevious = new Map(positions.filter((p) => p.previousId !== null).map((p) => [p.previousId!, p]));
  return (id) => byId.get(id) ?? byPrevious.get(id);
}

function follower(
  linkId: string,
  account: AccountRef,
  source: Read | undefined,
  sourceLogin: string,
  followerRead: Read | undefined,
  copies: readonly CopiedPositionRow[],
  deals: readonly Money[],
): FollowerDivergence {
  const realizedProfit = moneyToDecimal(deals.reduce((sum, amount) => sum + amount, 0));
  const base = { linkId, account, sourceOpen: 0, copiesOpen: 0, floatingProfit: null, realizedProfit, totalProfit: null, maxDrawdown: null, items: [] };
  const failed = [source, followerRead].find((r): r is { ok: false; error: string } => r !== undefined && !r.ok);
  if (!source?.ok || !followerRead?.ok) return { ...base, known: false, error: failed?.error ?? "The platform could not be read" };
  const sourcePositions = source.positions.filter((p) => p.login === sourceLogin);
  const sourceLive = liveOf(sourcePositions);
  const followerLive = liveOf(followerRead.positions.filter((p) => p.login === account.login));
  const items: DivergenceItem[] = [];
  let copiesOpen = 0;
  let profit = 0;
  // A source position is missing only when none of its copies is held: one closed by hand and then
  // resynced has two open rows, the first gone, the second held.
  const heldSources = new Set(copies.filter((c) => followerLive(c.followerPositionId)).map((c) => c.sourceId));
  const missing = new Set<string>();
  for (const copy of copies) {
    const sourcePosition = copy.sourceId.startsWith("position:") ? sourceLive(copy.sourceId.slice("position:".length)) : undefined;
    const held = followerLive(copy.followerPositionId);
    if (held) {
      copiesOpen += 1;
      profit += held.profit + held.swap;
    }
    if (sourcePosition && !held && !heldSources.has(copy.sourceId) && !missing.has(copy.sourceId)) {
      missing.add(copy.sourceId);
      items.push({
        kind: "missing",
        sourceId: copy.sourceId,
        symbol: sourcePosition.symbol,
        side: sourcePosition.side,
        volume: formatLots(sourcePosition.volume),
        followerPositionId: copy.followerPositionId,
      });
    } else if (!sourcePosition && held) {
      items.push({
        kind: "extra",
        sourceId: copy.sourceId,
        symbol: held.symbol,
        side: held.side,
        volume: formatLots(held.volume),
        followerPositionId: held.id,
      });
    }
  }
  const pl = copiesProfitOf(deals, profit);
  return {
    ...base,
    known: true,
    error: null,
    sourceOpen: sourcePositions.length,
    copiesOpen,
    floatingProfit: moneyToDecimal(pl.floating),
    totalProfit: moneyToDecimal(pl.total),
    maxDrawdown: moneyToDecimal(pl.maxDrawdown),
    items,
  };
}

export async function copierDivergence(
  db: DbOrTx,
  platforms: DivergencePlatforms,
  organizationId: string,
  linkId?: string,
  now = new Date(),
): Promise<CopierDivergence> {
  const links = (await listLinks(db, organizationId)).filter((l) => !linkId || l.id === linkId);
  if (links.length === 0) return { asOf: now.toISOString(), followers: [] };
  const [copied, deals] = await Promise.all([copiedPositions(db, organizationId, linkId), copiesDeals(db, organizationId, linkId)]);
  const dealsOf = new Map<string, Money[]>();
  for (const d of deals) {
    const key = `${d.linkId}|${d.platformId}|${d.login}`;
    (dealsOf.get(key) ?? dealsOf.set(key, []).get(key)!).push(d.amount);
  }
  const logins = new Map<string, Set<string>>();
  const want = (a: AccountRef) => (logins.get(a.platformId) ?? logins.set(a.platformId, new Set()).get(a.platformId)!).add(a.login);
  for (const link of links) {
    want(link.source);
    link.followers.forEach((f) => want(f.account));
  }
  const reads = await readPlatforms(platforms, organizationId, logins);
  const followers = links.flatMap((link) =>
    link.followers.map((f) =>
      follower(
        link.id,
        f.account,
        reads.get(link.source.platformId),
        link.source.login,
        reads.get(f.account.platformId),
        copied.filter((c) => c.linkId === link.id && c.platformId === f.account.platformId && c.login === f.account.login),
        dealsOf.get(`${link.id}|${f.account.platformId}|${f.account.login}`) ?? [],
      ),
    ),
  );
  return { asOf: now.toISOString(), followers };
}
