/**
 * The platform's normalized records (core/trading) as the API shows them: money and volumes as
 * decimal strings, times as ISO text.
 */
import { formatLots, moneyToDecimal, type Account, type Deal, type JournalEntry, type Position, type TradeSymbol } from "../../../core/trading/index.ts";

const DEFAULT_RANGE_MS = 30 * 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** [from, to] of a history query; the last 30 days by default. */
export function rangeOf(query: { from?: string; to?: string }): { from: number; to: number } {
  const to = query.to ? Date.parse(query.to) : Date.now();
  const from = query.from ? Date.parse(query.from) : to - DEFAULT_RANGE_MS;
  return { from, to };
}

/** What the audit log keeps of a new account: everything but secrets (it has none; passwords are never in it). */
export function auditedFields(account: Account) {
  return {
    login: account.login,
    group: account.group,
    name: account.name,
    email: account.email,
    leverage: account.leverage,
    enabled: account.enabled,
    readOnly: account.readOnly,
  };
}

/** A position as the API shows it; with its symbol, the rules a partial close and new stops follow. */
export function positionView(p: Position, symbol?: Pick<TradeSymbol, "digits" | "volumeMin" | "volumeStep">) {
  return {
    id: p.id,
    login: p.login,
    symbol: p.symbol,
    side: p.side,
    volume: formatLots(p.volume),
    openTime: iso(p.openTime),
    openPrice: p.openPrice,
    currentPrice: p.currentPrice,
    sl: p.sl,
    tp: p.tp,
    profit: moneyToDecimal(p.profit),
    swap: moneyToDecimal(p.swap),
    comment: p.comment,
    reason: p.reason,
    native: { ...p.native },
    ...(symbol ? { digits: symbol.digits, volumeMin: formatLots(symbol.volumeMin), volumeStep: formatLots(symbol.volumeStep) } : {}),
  };
}

export function dealView(d: Deal) {
  return {
    id: d.id,
    login: d.login,
    time: iso(d.time),
    action: d.action,
    entry: d.entry,
    positionId: d.positionId,
    symbol: d.symbol,
    volume: formatLots(d.volume),
    price: d.price,
    profit: moneyToDecimal(d.profit),
    commission: moneyToDecimal(d.commission),
    swap: moneyToDecimal(d.swap),
    comment: d.comment,
    reason: d.reason,
    native: { ...d.native },
  };
}

export function journalView(j: JournalEntry) {
  return { id: j.id, time: iso(j.time), level: j.level, sourceIp: j.sourceIp, login: j.login, message: j.message };
}
