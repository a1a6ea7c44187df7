/**
 * Configuration writes on the simulated server: a group or symbol record replaced whole, as MT5's
 * `group/add` and MT4's `CfgUpdateGroup` do, after the platform's rules (core/trading/configRules.ts).
 * The engine reads groups and symbols from the books at every check (margin, stop out, volumes,
 * sessions, allowed symbols), so what is written is obeyed from the next operation or tick on.
 */
import {
  canonicalConfig,
  dailySessions,
  groupProblems,
  holidaysProblems,
  symbolProblems,
  UNWRITABLE_GROUP_FIELDS,
  UNWRITABLE_SYMBOL_FIELDS,
  type Group,
  type Holiday,
  type TradeSymbol,
} from "../../../../core/trading/index.ts";
import { connectorErrors } from "../../errors.ts";
import { now, type EngineContext } from "./context.ts";

/** Symbol fields added after simulated servers were first saved. */
type LaterFields = "spreadBalance" | "marginInitial" | "marginMaintenance" | "marginHedged";

const ALL_WEEK = canonicalConfig({ sessions: dailySessions([0, 1, 2, 3, 4, 5, 6]) });

/** The fields that differ, each refused if the platform cannot take it. */
function changedFields<T extends object>(before: T, after: T, unwritable: Partial<Record<string, string>>): string[] {
  const changed: string[] = [];
  for (const key of Object.keys(after) as (keyof T & string)[]) {
    if (key === "native" || key === "name") continue;
    if (canonicalConfig({ v: before[key] }) === canonicalConfig({ v: after[key] })) continue;
    const refusal = unwritable[key];
    if (refusal) throw connectorErrors.invalidRequest(refusal);
    changed.push(key);
  }
  return changed;
}

export function updateGroup(ctx: EngineContext, name: string, written: Group): Group {
  const current = ctx.state.group(name);
  const next: Group = { ...written, name, native: current.native };
  const problems = groupProblems(next);
  if (problems.length > 0) throw connectorErrors.invalidRequest(problems.join(" "));
  const changed = changedFields(current, next, UNWRITABLE_GROUP_FIELDS[ctx.flavour.platform]);
  ctx.state.groups.set(name, next);
  if (changed.length > 0) ctx.journal.write(now(ctx), "ok", `group '${name}' changed: ${changed.join(", ")}`);
  return structuredClone(next);
}

export function updateSymbol(ctx: EngineContext, name: string, written: TradeSymbol): TradeSymbol {
  const current = ctx.state.symbol(name);
  // Held open (marketsAlwaysOpen), symbols report every day open: that report written back is not a change of sessions.
  const heldOpen = ctx.marketsAlwaysOpen?.() === true && canonicalConfig({ sessions: written.sessions }) === ALL_WEEK;
  const next: TradeSymbol = { ...written, name, sessions: heldOpen ? current.sessions : written.sessions };
  const problems = symbolProblems(next, ctx.flavour.platform);
  if (problems.length > 0) throw connectorErrors.invalidRequest(problems.join(" "));
  const changed = changedFields(current, next, UNWRITABLE_SYMBOL_FIELDS[ctx.flavour.platform]);
  ctx.state.symbols.set(name, next);
  ctx.feed.reconfigure(next);
  if (changed.length > 0) ctx.journal.write(now(ctx), "ok", `symbol '${name}' changed: ${changed.join(", ")}`);
  return reportedSymbol(ctx, next);
}

/** A symbol as the server reports it: held open (`marketsAlwaysOpen`), every day open in its sessions, since that is what it does. */
export function reportedSymbol(ctx: EngineContext, symbol: TradeSymbol): TradeSymbol {
  // A server saved before these fields existed holds none: they read as the platform's defaults.
  const saved: Partial<TradeSymbol> & Omit<TradeSymbol, LaterFields> = structuredClone(symbol);
  const copy: TradeSymbol = {
    ...saved,
    spreadBalance: saved.spreadBalance ?? 0,
    marginInitial: saved.marginInitial ?? 0,
    marginMaintenance: saved.marginMaintenance ?? 0,
    marginHedged: saved.marginHedged ?? 0,
  };
  return ctx.marketsAlwaysOpen?.() === true ? { ...copy, sessions: dailySessions([0, 1, 2, 3, 4, 5, 6]) } : copy;
}

/** Replaces the server's holidays (MetaTrader's; Match-Trader has none); the market follows them from the next order or tick. */
export function setHolidays(ctx: EngineContext, holidays: Holiday[]): Holiday[] {
  if (ctx.flavour.platform === "MatchTrader")
    throw connectorErrors.invalidRequest("Match-Trader has no server holidays: an instrument's trading hours say when it trades.");
  const problems = holidaysProblems(holidays);
  if (problems.length > 0) throw connectorErrors.invalidRequest(problems.join(" "));
  ctx.state.holidays = structuredClone(holidays);
  ctx.journal.write(now(ctx), "ok", `holidays changed: ${holidays.length} in the list`);
  return structuredClone(ctx.state.holidays);
}
