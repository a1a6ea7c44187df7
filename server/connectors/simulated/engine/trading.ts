/**
 * Opening, changing and closing positions on the simulated server, and what the server does on
 * its own at each price tick (stop loss, take profit, stop out). Each operation is one
 * transaction in the server log, with the account's new state when its balance moved.
 */
import {
  compileMask,
  entryDeal,
  exitDeal,
  formatLots,
  MAX_ACCOUNT_MONEY,
  moneyToDisplay,
  shareOfMoney,
  VOLUME_PER_LOT,
  type ClosedPositionRecord,
  type ClosePositionRequest,
  type ModifyPositionRequest,
  type OrderRequest,
  type OrderResult,
  type PendingOrder,
  type PositionRecord,
  type TradeReason,
} from "../../../../core/trading/index.ts";
import { connectorErrors } from "../../errors.ts";
import type { RecordedTradeEvent } from "../../wire/codec.ts";
import { commit, now, type EngineContext } from "./context.ts";
import { dealtQuote } from "./dealing.ts";
import * as rules from "./rules.ts";
import { closingPrice, exposureOf, figuresOf, marginFor, notionalOf, profitAt, quoteOf, revalue, snapshotAccount, snapshotPosition } from "./valuation.ts";

/**
 * Opens a position at the market. `from`: the pending order that triggered (it fills into this
 * position: the position takes the id the flavour gives it and names the order, and the
 * transaction starts with the order's `orderFilled`).
 */
export function openPosition(ctx: EngineContext, request: OrderRequest, from?: PendingOrder): OrderResult {
  const account = ctx.state.account(request.login);
  rules.requireMayOpen(account);
  const symbol = ctx.state.symbol(request.symbol);
  const group = ctx.state.group(account.group);
  if (!compileMask(group.symbols)(symbol.name) || symbol.tradeMode !== "full")
    throw connectorErrors.rejected("tradeDisabled", `${symbol.name} cannot be opened in group '${group.name}'.`);
  rules.requireMarketOpen(ctx, symbol);
  rules.requireVolume(symbol, request.volume);
  if (group.maxPositions > 0 && account.positions.size >= group.maxPositions)
    throw connectorErrors.rejected("tooManyPositions", `Account ${account.login} already has ${group.maxPositions} open positions, the group's limit.`);
  // The execution profile in force (Toolbox's dealing): markup, stale quotes, volume and deviation limits.
  const { quote, maxDeviationPoints } = dealtQuote(ctx, symbol, request, quoteOf(ctx, symbol.name));
  const price = request.side === "buy" ? quote.ask : quote.bid;
  rules.requireDeviation(symbol, price, request.expectedPrice, maxDeviationPoints);
  rules.requireStops(symbol, request.side, request.side === "buy" ? quote.bid : quote.ask, request.sl, request.tp);
  // The account's positions stay worth at most the account bound, so their profit can never take a figure out of range.
  const exposure = exposureOf(ctx, account) + notionalOf(ctx, symbol, request.volume, price, account);
  if (exposure > MAX_ACCOUNT_MONEY)
    throw connectorErrors.rejected(
      "maxMoney",
      `The server refuses this order: account ${account.login}'s open positions would be worth more than ${moneyToDisplay(MAX_ACCOUNT_MONEY)} ${account.currency}, the most an account may hold.`,
    );
  const commission = 0 - shareOfMoney(group.commissionPerLot, request.volume, VOLUME_PER_LOT); // 0 - x, not -x: no negative zero in money
  const figures = figuresOf(ctx, account);
  const margin = marginFor(ctx, symbol, request.volume, price, account);
  if (figures.equity + commission - figures.margin - margin < 0)
    throw connectorErrors.rejected(
      "notEnoughMoney",
      `Not enough money: ${formatLots(request.volume)} lot ${symbol.name} needs ${rules.formatMoney(margin, account.currency)} of margin; ${rules.formatMoney(figures.freeMargin, account.currency)} is free.`,
    );

  const time = now(ctx);
  const ids = from ? ctx.flavour.positionOf(from) : ctx.flavour.newPosition();
  const position: PositionRecord = {
    id: ids.id,
    login: account.login,
    symbol: symbol.name,
    side: request.side,
    volume: request.volume,
    openTime: time,
    openPrice: price,
    currentPrice: price,
    sl: request.sl ?? null,
    tp: request.tp ?? null,
    profit: 0,
    swap: 0,
    commission,
    comment: request.comment ?? "",
    reason: request.reason ?? "dealer",
    previousId: null,
    ...(from?.tag === undefined ? {} : { tag: from.tag }),
    native: ids.native,
  };
  ctx.state.addPosition(position);
  const entry = ctx.flavour.entryDeal(position);
  const deal = entryDeal(position, entry.id, entry.native);
  ctx.state.addDeal(deal);
  account.balance += commission;
  ctx.journal.write(
    time,
    "trade",
    `'${account.login}': #${position.id} ${position.side} ${formatLots(position.volume)} ${symbol.name} at ${price}`,
    account.login,
  );
  // The fill names its order (decision 0068); the position the server keeps does not, as no platform's position record does.
  const opened = from ? { ...snapshotPosition(ctx, position), orderId: from.id } : snapshotPosition(ctx, position);
  const events: RecordedTradeEvent[] = [
    ...(from ? [{ type: "orderFilled" as const, time, login: account.login, order: from, position: opened }] : []),
    { type: "positionOpened", time, login: account.login, position: opened },
    { type: "dealAdded", time, login: account.login, deal },
  ];
  if (commission !== 0) events.push({ type: "accountChanged", time, login: account.login, account: snapshotAccount(ctx, account) });
  commit(ctx, events);
  return { requestId: request.requestId, positionId: position.id, dealId: deal.id, price, volume: position.volume, time };
}

export function modifyPosition(ctx: EngineContext, request: ModifyPositionRequest): OrderResult {
  const position = ctx.state.position(request.positionId);
  const symbol = ctx.state.symbol(position.symbol);
  rules.requireMarketOpen(ctx, symbol);
  rules.requireStops(symbol, position.side, closingPrice(ctx, position), request.sl, request.tp);
  position.sl = request.sl;
  position.tp = request.tp;
  const time = now(ctx);
  ctx.journal.write(time, "trade", `'${position.login}': modify #${position.id} sl ${request.sl ?? "none"} tp ${request.tp ?? "none"}`, position.login);
  const snapshot = snapshotPosition(ctx, position);
  commit(ctx, [{ type: "positionModified", time, login: position.login, position: snapshot, change: "stops" }]);
  return { requestId: request.requestId, positionId: position.id, dealId: null, price: snapshot.currentPrice, volume: position.volume, time };
}

export function closePosition(ctx: EngineContext, request: ClosePositionRequest): OrderResult {
  const position = ctx.state.position(request.positionId);
  const account = ctx.state.account(position.login);
  const symbol = ctx.state.symbol(position.symbol);
  const reason: TradeReason = request.reason ?? "dealer";
  // The server closes on SL, TP and stop out only while prices move, that is, while the market is open.
  rules.requireMarketOpen(ctx, symbol);
  const volume = request.volume ?? position.volume;
  const remaining = position.volume - volume;
  if (volume > position.volume)
    throw connectorErrors.rejected("invalidVolume", `Position #${position.id} has only ${formatLots(position.volume)} lot to close.`);
  rules.requireVolume(symbol, volume);
  if (remaining > 0 && remaining < symbol.volumeMin)
    throw connectorErrors.rejected(
      "invalidVolume",
      `Closing ${formatLots(volume)} lot would leave less than the minimum ${formatLots(symbol.volumeMin)} lot open.`,
    );

  const time = now(ctx);
  const price = closingPrice(ctx, position);
  const full = remaining === 0;
  const closed: ClosedPositionRecord = {
    ...position,
    volume,
    profit: profitAt(ctx, position, volume, price, symbol, account),
    swap: full ? position.swap : shareOfMoney(position.swap, volume, position.volume),
    commission: full ? position.commission : shareOfMoney(position.commission, volume, position.volume),
    currentPrice: price,
    closeTime: time,
    closePrice: price,
    closeReason: reason,
  };
  // The profit goes into the balance: refused (the position stays open) if that took the balance past the bound.
  rules.requireWithinAccountBound("balance", account.balance + closed.profit + closed.swap, account.currency, `closing #${position.id}`);
  const events: RecordedTradeEvent[] = [];
  if (full) {
    ctx.state.removePosition(position);
    events.push({ type: "positionClosed", time, login: account.login, position: closed });
  } else if (ctx.flavour.partialClose === "reissue") {
    // MT4: the ticket closes for the part, a new ticket carries the rest.
    const next = ctx.flavour.newPosition();
    const rest: PositionRecord = {
      ...position,
      id: next.id,
      native: next.native,
      volume: remaining,
      swap: position.swap - closed.swap,
      commission: position.commission - closed.commission,
      comment: `from #${position.id}`,
      previousId: position.id,
    };
    closed.comment = `to #${next.id}`;
    closed.previousId = null;
    ctx.state.removePosition(position);
    ctx.state.addPosition(rest);
    events.push({ type: "positionClosed", time, login: account.login, position: closed });
    events.push({ type: "positionOpened", time, login: account.login, position: snapshotPosition(ctx, rest) });
  } else {
    position.volume = remaining;
    position.swap -= closed.swap;
    position.commission -= closed.commission;
    revalue(ctx, position, account);
    events.push({ type: "positionModified", time, login: account.login, position: { ...position }, change: "partialClose", closedPart: closed });
  }
  const exit = ctx.flavour.exitDeal(closed);
  const deal = exitDeal(closed, exit.id, exit.native);
  // MT5 writes the closing request's comment on the exit deal; the position keeps its own.
  if (ctx.flavour.platform === "MT5" && request.comment !== undefined) deal.comment = request.comment;
  // The exit deal goes right after the closing itself, before a re-issued ticket.
  events.splice(1, 0, { type: "dealAdded", time, login: account.login, deal });
  ctx.state.addDeal(deal);
  ctx.state.addClosed({ position: closed, exit: deal });
  account.balance += closed.profit + closed.swap;
  ctx.journal.write(
    time,
    "trade",
    `'${account.login}': close #${position.id} ${position.side} ${formatLots(volume)} ${symbol.name} at ${price}, profit ${rules.formatMoney(closed.profit, account.currency)}${reason === "dealer" ? "" : ` (${reason})`}`,
    account.login,
  );
  events.push({ type: "accountChanged", time, login: account.login, account: snapshotAccount(ctx, account) });
  commit(ctx, events);
  return { requestId: request.requestId, positionId: position.id, dealId: deal.id, price, volume, time };
}

/** After a price move: positions whose stop loss or take profit was reached close, then accounts below stop out lose their worst position until they recover. */
export function enforceStops(ctx: EngineContext): void {
  const triggered: [string, TradeReason][] = [];
  for (const p of ctx.state.positions.values()) {
    const quote = ctx.feed.quote(p.symbol);
    if (!quote || (p.sl === null && p.tp === null)) continue;
    const price = p.side === "buy" ? quote.bid : quote.ask;
    const hitSl = p.sl !== null && (p.side === "buy" ? price <= p.sl : price >= p.sl);
    const hitTp = p.tp !== null && (p.side === "buy" ? price >= p.tp : price <= p.tp);
    if (hitSl || hitTp) triggered.push([p.id, hitSl ? "sl" : "tp"]);
  }
  for (const [id, reason] of triggered) closeQuietly(ctx, id, reason);
  for (const login of stopOutCandidates(ctx)) {
    const account = ctx.state.account(login);
    for (let guard = 0; guard < 1000 && account.positions.size > 0; guard++) {
      const figures = figuresOf(ctx, account);
      if (figures.marginState !== "stopOut") break;
      const worst = [...account.positions].map((id) => ctx.state.position(id)).sort((a, b) => a.profit - b.profit)[0];
      if (!worst) break;
      ctx.journal.write(now(ctx), "attention", `'${login}': stop out at margin level ${figures.marginLevel}%, closing #${worst.id}`, login);
      if (!closeQuietly(ctx, worst.id, "stopOut")) break;
    }
  }
}

/**
 * Accounts to check for stop out on this tick: all of them on a normal server; on a very large
 * one, the next ones in turn for a few milliseconds (at least a few hundred), so one tick never
 * holds the event loop for long and every account is still checked every few seconds.
 */
const STOP_OUT_CHECK_ALL_UP_TO = 1000;
const STOP_OUT_CHECK_MIN = 200;
const STOP_OUT_BUDGET_MS = 8;

function* stopOutCandidates(ctx: EngineContext): Generator<string> {
  const exposed = [...ctx.state.exposed];
  if (exposed.length <= STOP_OUT_CHECK_ALL_UP_TO) {
    yield* exposed;
    return;
  }
  const start = ctx.state.stopOutCursor % exposed.length;
  const began = performance.now();
  let checked = 0;
  while (checked < exposed.length && (checked < STOP_OUT_CHECK_MIN || performance.now() - began < STOP_OUT_BUDGET_MS)) {
    ctx.state.stopOutCursor = start + checked + 1;
    yield exposed[(start + checked++) % exposed.length] as string;
  }
}

function closeQuietly(ctx: EngineContext, positionId: string, reason: TradeReason): boolean {
  try {
    closePosition(ctx, { requestId: `server-${reason}-${positionId}`, positionId, reason });
    return true;
  } catch {
    return false; // e.g. its market just closed; the next tick tries again
  }
}
