/**
 * One follower, one source action (docs/trades-copier.md "The engine"): the follower's context is
 * read, the copy rules decide, the ledger row is written (pending with a lease, or skipped) BEFORE
 * anything is sent, then the follower's platform is asked with the row's request id and the row
 * records its answer. A row already in the ledger is never decided again: a repeat of the event
 * (a redelivery, a replay after a gap, another node's catch-up) changes nothing; a pending row
 * whose lease ran out is sent again with its own request id, and the connector's exactly-once
 * answers with the first result. Each row keeps the source's volume it was decided for, so a copy
 * is brought to its share of what the source keeps (core/copier copyShare). The source's fill of an
 * order the follower holds a copy of sends nothing: its row records the follower position the copy
 * filled into (./fills.ts), and is never a second, market copy.
 */
import {
  copyRequestId,
  decide,
  findSymbol,
  followerKey,
  followerSymbolOf,
  type CopiedOrder,
  type CopiedPosition,
  type Decision,
  type FollowerContext,
  sourceIdOf,
  type SourceAction,
  type Suspension,
} from "../../../../core/copier/index.ts";
import type { FollowerSettings } from "../../../../core/schemas/copier.ts";
import { conversionRate, type TradeSymbol } from "../../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../../connectors/connector.ts";
import { operationTag } from "../../../connectors/operationOnce.ts";
import type { Db } from "../../../db/client.ts";
import { noticeDivergence } from "./divergenceNotice.ts";
import { filledBy, recordFill } from "./fills.ts";
import * as ledger from "./ledgerRepository.ts";
import { recordFailure, resend, send } from "./sendRow.ts";
import { isReplaceCancel, mustReplace, replacementOf, runReplace, withoutExpiration } from "./replaceOrder.ts";
import { riskContextFor, riskContextNow, tripRiskStop } from "./riskStops.ts";

export interface CopierLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface CopierDeps {
  db: Db;
  /** This node: the ledger's lease holder. */
  nodeId: string;
  connectorFor(organizationId: string, platformId: string): Promise<TradePlatformConnector>;
  /** A copy was refused: the notification center hears of it (`copierFailure`). */
  failed(row: ledger.LedgerRow): void;
  /** A follower suspended by a risk stop (`copierFailure`), a copy gone missing (`copierDivergence`): published once, under `id`. */
  notify?(notice: {
    type: "copierFailure" | "copierDivergence";
    organizationId: string;
    platformId: string;
    linkId: string;
    message: string;
    id: string;
  }): void;
  log: CopierLogger;
}

/** A follower as the engine works it: its settings, when it was added, and its risk-stop suspension (./riskStops.ts). */
export type EngineFollower = FollowerSettings & { addedAt: number; suspension?: Suspension | null };

/** A link as the engine works it. */
export interface EngineLink {
  id: string;
  organizationId: string;
  enabled: boolean;
  sourcePlatformId: string;
  sourceLogin: string;
  followers: EngineFollower[];
}

const SYMBOLS_TTL_MS = 60_000;
const symbolCache = new WeakMap<TradePlatformConnector, { at: number; symbols: Promise<Map<string, TradeSymbol>> }>();

/** The server's symbols by name, read at most once a minute per connector. */
export function symbolsOf(connector: TradePlatformConnector): Promise<Map<string, TradeSymbol>> {
  const cached = symbolCache.get(connector);
  if (cached && Date.now() - cached.at < SYMBOLS_TTL_MS) return cached.symbols;
  const symbols = connector.listSymbols().then((list) => new Map(list.map((s) => [s.name, s])));
  symbols.catch(() => symbolCache.delete(connector));
  symbolCache.set(connector, { at: Date.now(), symbols });
  return symbols;
}

function sourceSymbolName(action: SourceAction): string {
  return "order" in action ? action.order.symbol : action.position.symbol;
}

/** The follower's copy of this source position or order, as its platform holds it now (found by the ledger's id, the MT4 chain, or the tag). */
async function copiesOf(
  deps: CopierDeps,
  link: EngineLink,
  follower: FollowerSettings,
  connector: TradePlatformConnector,
  sourceId: string,
  filling: boolean,
  known: Known,
): Promise<{ copied: CopiedPosition | null; copiedOrder: CopiedOrder | null }> {
  const state = known
    ? known.states.get(followerKey(follower.account))
    : (await ledger.copyStates(deps.db, link.id, follower.account.platformId, follower.account.login)).get(sourceId);
  // A position's copy whose open is still being sent (another worker's lease, a crash before its
  // answer): deciding now would call it "not copied" and leave the copy open once it lands. Not
  // decided now: recorded as not read (recordFailure), and decided again by the link's catch-up once
  // the open is answered. (Orders are not caught up: a copied order's place in flight is a known limit.)
  if (sourceId.startsWith("position:") && state?.inFlight && !state.followerId)
    throw new Error("The copy's open is still being sent; this is decided again once it is answered");
  if (!state?.followerId && !state?.fill) return { copied: null, copiedOrder: null };
  if (sourceId.startsWith("order:")) {
    const order = (await connector.pendingOrders(follower.account.login)).find((o) => o.id === state.followerId);
    if (!order && filling && state.followerId) {
      // The copy filled (or left) on the follower's own server: never opened a second time (./fills.ts links it).
      return { copied: null, copiedOrder: { orderId: state.followerId, symbol: state.symbol ?? "", type: "buyLimit", volume: state.volume ?? 0 } };
    }
    return { copied: null, copiedOrder: order ? { orderId: order.id, symbol: order.symbol, type: order.type, volume: order.volume } : null };
  }
  const open = await connector.openPositions(follower.account.login);
  const tag = state.openRequestId ? operationTag(state.openRequestId) : null;
  let p =
    open.find((x) => x.id === state.followerId) ?? open.find((x) => x.previousId === state.followerId) ?? (tag ? open.find((x) => x.tag === tag) : undefined);
  if (!p && state.fill && state.followerId === null) {
    // A copied order's fill whose position was not open when the source's order filled.
    p = filledBy(open, state.fill.orderId, state.fill.placeRequestId);
    if (p) await ledger.setFillPosition(deps.db, state.fill.rowId, p.id);
  }
  const opened = state.volume !== null && state.sourceVolume !== null ? { opened: { volume: state.volume, sourceVolume: state.sourceVolume } } : {};
  return { copied: p ? { positionId: p.id, symbol: p.symbol, side: p.side, volume: p.volume, openPrice: p.openPrice, ...opened } : null, copiedOrder: null };
}

/** The copies of the action's source position or order on every follower of the link, read once for the fan-out (else per follower). */
type Known = { states: Map<string, ledger.CopyState> } | undefined;

/** What the rules know of the follower for this action: only what its settings need is read. */
export async function contextFor(
  deps: CopierDeps,
  link: EngineLink,
  follower: FollowerSettings,
  action: SourceAction,
  connector: TradePlatformConnector,
  sourceConnector: TradePlatformConnector,
  known?: Known,
  symbols?: { follower: Map<string, TradeSymbol>; source: Map<string, TradeSymbol> },
): Promise<FollowerContext> {
  const [followerSymbols, sourceSymbols] = symbols ? [symbols.follower, symbols.source] : await Promise.all([symbolsOf(connector), symbolsOf(sourceConnector)]);
  const opening = action.type === "open" || action.type === "orderPlaced" || action.type === "orderFilled";
  const mode = follower.volume.mode;
  const needsFollowerMoney = opening && (mode === "equity" || mode === "balance" || mode === "riskPercent" || follower.equityFloor !== null);
  const needsSourceMoney = opening && (mode === "equity" || mode === "balance");
  const mapped = followerSymbolOf(follower, followerSymbols, sourceSymbolName(action));
  const needsQuote = opening && "symbol" in mapped && (follower.maxDeviationPoints !== null || follower.stops.mode === "fixed" || mode === "riskPercent");
  const symbol = "symbol" in mapped ? mapped.symbol : undefined;
  const base = { linkId: link.id, linkEnabled: link.enabled, followerSymbols, sourceSymbol: findSymbol(sourceSymbols, sourceSymbolName(action)) };
  const riskNow = riskContextNow(link, follower, action);
  if (action.type === "open" && !needsFollowerMoney && !needsSourceMoney && !needsQuote && riskNow) return openContext(base, riskNow);
  const [followerAccount, sourceAccount, quotes, copies, risk] = await Promise.all([
    needsFollowerMoney ? connector.getAccount(follower.account.login) : null,
    needsSourceMoney ? sourceConnector.getAccount(link.sourceLogin) : null,
    needsQuote ? connector.getQuotes(mode === "riskPercent" ? undefined : ["symbol" in mapped ? mapped.symbol.name : ""]) : [],
    action.type === "open"
      ? { copied: null, copiedOrder: null }
      : copiesOf(deps, link, follower, connector, copiesSourceId(action), action.type === "orderFilled", known),
    riskNow ?? riskContextFor(deps, link, follower, action, connector),
  ]);
  const quote = symbol ? quotes.find((q) => q.symbol === symbol.name) : undefined;
  const mids = new Map(quotes.map((q) => [q.symbol, (q.bid + q.ask) / 2]));
  return {
    ...base,
    follower: { balance: followerAccount?.balance ?? 0, equity: followerAccount?.equity ?? 0 },
    source: { balance: sourceAccount?.balance ?? 0, equity: sourceAccount?.equity ?? 0 },
    price: quote ? { bid: quote.bid, ask: quote.ask } : null,
    profitRate: symbol && followerAccount ? conversionRate(symbol.profitCurrency, followerAccount.currency, (n) => mids.get(n)) : undefined,
    now: Date.now(),
    ...copies,
    ...risk,
  };
}

const NO_MONEY = { balance: 0, equity: 0 } as const;

function openContext(
  base: Pick<FollowerContext, "linkId" | "linkEnabled" | "followerSymbols" | "sourceSymbol">,
  risk: Pick<FollowerContext, "dailyProfit" | "suspension">,
): FollowerContext {
  return { ...base, follower: NO_MONEY, source: NO_MONEY, price: null, profitRate: undefined, now: Date.now(), copied: null, copiedOrder: null, ...risk };
}

/**
 * The usual open's context, with nothing to read (a volume from the source's, no price check, no
 * daily loss limit): decided at once, without a turn of the event loop per follower; null otherwise.
 */
function openContextNow(
  link: EngineLink,
  follower: FollowerSettings,
  action: SourceAction,
  symbols: { follower: Map<string, TradeSymbol>; source: Map<string, TradeSymbol> },
): FollowerContext | null {
  if (action.type !== "open") return null;
  const mode = follower.volume.mode;
  if (mode === "equity" || mode === "balance" || mode === "riskPercent" || follower.equityFloor !== null) return null;
  if (follower.maxDeviationPoints !== null || follower.stops.mode === "fixed") return null;
  const risk = riskContextNow(link, follower, action);
  if (!risk) return null;
  const name = sourceSymbolName(action);
  return openContext({ linkId: link.id, linkEnabled: link.enabled, followerSymbols: symbols.follower, sourceSymbol: findSymbol(symbols.source, name) }, risk);
}

export interface Times {
  sourceTime: number;
  receivedAt: number;
}

/** The source position or order whose copy an action acts on (a source fill acts on the copy of its order). */
const copiesSourceId = (action: SourceAction) => (action.type === "orderFilled" ? `order:${action.order.id}` : sourceIdOf(action));

/** One follower's decision in a fan-out, before it is recorded. */
interface Decided {
  follower: FollowerSettings;
  requestId: string;
  connector: TradePlatformConnector;
  ctx: FollowerContext;
  decision: Decision;
  decidedAt: Date;
}

/**
 * Decides one source action for each of the link's given followers, records every decision in one
 * statement, then sends them all at once (docs/trades-copier.md "The engine"): the rows already in
 * the ledger are read in one query, the copies the action acts on in another, the rules decide in
 * memory. A follower whose context could not be read, or whose work failed, is recorded as such
 * (recordFailure) without holding the others back.
 */
export async function copyToFollowers(
  deps: CopierDeps,
  link: EngineLink,
  followers: readonly FollowerSettings[],
  action: SourceAction,
  times: Times,
): Promise<void> {
  const requestIds = followers.map((f) => copyRequestId(link.id, followerKey(f.account), action));
  const failed = (follower: FollowerSettings) => (err: unknown) =>
    recordFailure(deps, link, follower, action, times, err).catch((e: unknown) =>
      deps.log.error({ err: e, linkId: link.id }, "copier: a failure could not be recorded"),
    );
  // Each platform's connector and symbols once for the fan-out (asking for a connector reads the
  // platform's switch in the database); a platform that is away fails its own followers only.
  type Platform = { connector: TradePlatformConnector; symbols: Map<string, TradeSymbol> };
  const platforms = new Map<string, Promise<Platform>>();
  const ready = new Map<string, Platform>();
  const platformOf = (platformId: string) => {
    let platform = platforms.get(platformId);
    if (!platform) {
      platform = deps.connectorFor(link.organizationId, platformId).then(async (connector) => {
        const p = { connector, symbols: await symbolsOf(connector) };
        ready.set(platformId, p);
        return p;
      });
      platform.catch(() => undefined);
      platforms.set(platformId, platform);
    }
    return platform;
  };
  // An open's decisions are cheap and a repeat of one changes nothing (its rows are there: the
  // insert leaves them, and nothing is sent for them), so an open is decided before its rows are
  // read: only those left are read after, to send again a pending one whose lease ran out. Other
  // actions read the ledger first (their copies are read from it anyway, in the same round trip).
  const optimistic = action.type === "open";
  let read: [Map<string, ledger.LedgerRow>, Awaited<ReturnType<typeof platformOf>>, Known];
  try {
    read = await Promise.all([
      optimistic ? new Map<string, ledger.LedgerRow>() : ledger.findRows(deps.db, requestIds),
      platformOf(link.sourcePlatformId),
      action.type === "open" ? undefined : ledger.copyStatesOfSource(deps.db, link.id, copiesSourceId(action)).then((states) => ({ states })),
    ]);
  } catch (err) {
    // The source's platform (or the ledger) could not be read: each follower's action is recorded
    // as not decided, with why, and decided again by the link's catch-up.
    await Promise.all(followers.map((f) => failed(f)(err)));
    return;
  }
  const [existing, source, known] = read;
  // Each follower platform is worked on its own, all at once: its followers decided, recorded in one
  // statement and sent as soon as its connector and symbols are ready, so a platform that is slow
  // to answer (or away) holds back only its own followers.
  const byPlatform = new Map<string, { follower: FollowerSettings; requestId: string }[]>();
  followers.forEach((follower, i) => {
    const list = byPlatform.get(follower.account.platformId) ?? [];
    list.push({ follower, requestId: requestIds[i]! });
    byPlatform.set(follower.account.platformId, list);
  });
  await Promise.all([...byPlatform].map(([platformId, group]) => fanOutOn(platformId, group)));

  async function fanOutOn(platformId: string, group: readonly { follower: FollowerSettings; requestId: string }[]): Promise<void> {
    await platformOf(platformId).catch(() => undefined);
    /** A follower whose context needs a read (its money, a quote, its copies, its day's P/L), or whose row is there already. */
    const decideRead = async (follower: FollowerSettings, requestId: string): Promise<Decided | null> => {
      const row = existing.get(requestId);
      try {
        if (row && !ledger.isUnread(row)) {
          // A repeat, or a row another worker holds; a pending one whose lease ran out is sent again.
          if (row.state === "pending") await resend(deps, row);
          return null;
        }
        const platform = await platformOf(follower.account.platformId);
        const symbols = { follower: platform.symbols, source: source.symbols };
        const ctx = { ...(await contextFor(deps, link, follower, action, platform.connector, source.connector, known, symbols)), requestId };
        return { follower, requestId, connector: platform.connector, ctx, decision: decide(action, follower, ctx), decidedAt: new Date() };
      } catch (err) {
        // The follower's context could not be read (its platform away): recorded as failed, with why.
        await failed(follower)(err);
        return null;
      }
    };
    const decided: (Decided | null)[] = new Array<Decided | null>(group.length).fill(null);
    const reads: Promise<void>[] = [];
    group.forEach(({ follower, requestId }, i) => {
      const platform = ready.get(follower.account.platformId);
      if (platform && !existing.has(requestId)) {
        try {
          // The usual open: decided now, in this turn, with nothing read.
          const ctx = openContextNow(link, follower, action, { follower: platform.symbols, source: source.symbols });
          if (ctx) {
            ctx.requestId = requestId;
            decided[i] = { follower, requestId, connector: platform.connector, ctx, decision: decide(action, follower, ctx), decidedAt: new Date() };
            return;
          }
        } catch {
          // Decided the long way, where a failure is recorded with why.
        }
      }
      reads.push(decideRead(follower, requestId).then((d) => void (decided[i] = d)));
    });
    await Promise.all(reads);
    const rows: { row: ledger.NewLedgerRow; leaseMs: number; sendNow: boolean }[] = [];
    for (const d of decided) {
      if (!d || d.decision.kind === "nothing") continue;
      const base = {
        requestId: d.requestId,
        organizationId: link.organizationId,
        linkId: link.id,
        followerPlatformId: d.follower.account.platformId,
        followerLogin: d.follower.account.login,
        sourceId: sourceIdOf(action),
        sourceAction: action.type,
        sourceVolume: "order" in action && action.type !== "orderFilled" ? action.order.volume : action.position.volume,
        sourceTime: new Date(times.sourceTime),
        receivedAt: new Date(times.receivedAt),
        decidedAt: d.decidedAt,
      };
      if (d.decision.kind === "skip") {
        rows.push({ row: { ...base, state: "skipped", reason: d.decision.reason, followerAction: null }, leaseMs: 0, sendNow: false });
        continue;
      }
      // A change the follower's platform cannot make in place is a cancel and a new place (./replaceOrder.ts).
      const fitted = withoutExpiration(d.decision.action, d.connector);
      const planned = mustReplace(fitted, d.connector) && d.ctx.copiedOrder ? replacementOf(fitted, d.ctx.copiedOrder, d.connector) : fitted;
      rows.push({
        row: { ...base, state: "pending", followerAction: planned.type, action: planned, leaseHolder: deps.nodeId, ...ledger.describe(planned) },
        leaseMs: ledger.leaseMsOf(d.connector),
        // A replacement's cancel is sent by runReplace, which marks it itself.
        sendNow: !("replacement" in planned),
      });
    }
    const recorded = await ledger.insertRows(deps.db, rows);
    const left = optimistic ? decided.filter((d) => d && d.decision.kind !== "nothing" && !recorded.has(d.requestId)).map((d) => d!.requestId) : [];
    const repeats = left.length > 0 ? ledger.findRows(deps.db, left) : undefined;
    await Promise.all(
      decided.map(async (d) => {
        if (!d) return;
        const { follower, connector, ctx, decision } = d;
        if (repeats && !recorded.has(d.requestId)) {
          // A repeat, or a row another worker holds; a pending one whose lease ran out is sent again.
          const row = (await repeats).get(d.requestId);
          if (row?.state === "pending") await resend(deps, row).catch(failed(follower));
          return;
        }
        try {
          if (decision.kind === "nothing") {
            if (action.type === "orderFilled" && ctx.copiedOrder) await recordFill(deps, link, follower, action, times, connector);
          } else if (decision.kind === "skip") {
            if (decision.riskStop && !ctx.suspension)
              await tripRiskStop(deps, link, follower, decision.riskStop, { equity: ctx.follower.equity, dailyProfit: ctx.dailyProfit }, send);
            if (decision.reason === "notCopied") await noticeDivergence(deps, link, follower, action);
          } else {
            const row = recorded.get(d.requestId);
            if (row && isReplaceCancel(row)) await runReplace(deps, row, connector, send);
            else if (row) await send(deps, row, connector, true);
          }
        } catch (err) {
          await failed(follower)(err);
        }
      }),
    );
  }
}

export { recordFailure, resend, send };
