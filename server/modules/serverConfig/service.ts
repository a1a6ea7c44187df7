/**
 * A platform's groups, symbols and holidays, read with each one's version, and staged changes
 * applied one by one exactly as sent, through the connector (docs/server-configuration.md). The
 * connector checks the version and the platform's rules before writing (docs/connectors.md,
 * "Configuration writes"); here each change's answer is made readable and each applied change
 * audited with the fields' values before and after. Toolbox stores nothing else.
 */
import { configVersion, holidaysVersion, type Group, type TradeSymbol } from "../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import { ConnectorError, isConfigChanged } from "../../connectors/errors.ts";
import type { DbOrTx } from "../../db/client.ts";
import { domainErrorOf, viaConnector } from "../../errors.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import type { ChangeResult, ConfigChange } from "./schemas.ts";

export interface ServerConfigDeps {
  db: DbOrTx;
  connectorFor(organizationId: string, platformId: string): Promise<TradePlatformConnector>;
}

/** The audit record's target: one per object, `holidays` for the whole list. */
export const AUDIT_TARGET = { group: "serverConfig.group", symbol: "serverConfig.symbol", holidays: "serverConfig.holidays" } as const;
export const auditTargetId = (platformId: string, name: string | null) => `${platformId}/${name ?? "holidays"}`;

const withVersion = <T extends object>(object: T) => ({ version: configVersion(object), object: object as unknown as Record<string, unknown> });

export async function listGroups(deps: ServerConfigDeps, organizationId: string, platformId: string) {
  const connector = await deps.connectorFor(organizationId, platformId);
  const groups = await viaConnector(() => connector.listGroups());
  return { platform: connector.platform, items: groups.map(withVersion) };
}

export async function listSymbols(deps: ServerConfigDeps, organizationId: string, platformId: string) {
  const connector = await deps.connectorFor(organizationId, platformId);
  const symbols = await viaConnector(() => connector.listSymbols());
  return { platform: connector.platform, items: symbols.map(withVersion) };
}

/** A symbol group: a node of the symbols' path tree ("Forex", "Forex\\Majors"), with every symbol under it. */
export interface SymbolGroup {
  path: string;
  /** The enclosing group's path; null at the top. */
  parent: string | null;
  /** Names of the symbols under it, at any depth, sorted. */
  symbols: string[];
}

/**
 * The symbol groups of a platform, from its symbols' paths (the symbol's own name at the end left
 * out), as MetaTrader's symbol tree shows them; sorted by path. A symbol moves between groups by
 * its path (a symbol change).
 */
export function symbolGroupsOf(symbols: readonly TradeSymbol[]): SymbolGroup[] {
  const groups = new Map<string, SymbolGroup>();
  for (const symbol of symbols) {
    const parts = symbol.path.split(/[\\/]/).filter((p) => p !== "");
    if (parts.at(-1)?.toLowerCase() === symbol.name.toLowerCase()) parts.pop();
    for (let depth = 1; depth <= parts.length; depth++) {
      const path = parts.slice(0, depth).join("\\");
      let group = groups.get(path);
      if (!group) groups.set(path, (group = { path, parent: depth === 1 ? null : parts.slice(0, depth - 1).join("\\"), symbols: [] }));
      group.symbols.push(symbol.name);
    }
  }
  return [...groups.values()].map((g) => ({ ...g, symbols: g.symbols.sort() })).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export async function listSymbolGroups(deps: ServerConfigDeps, organizationId: string, platformId: string) {
  const connector = await deps.connectorFor(organizationId, platformId);
  const symbols = await viaConnector(() => connector.listSymbols());
  return { platform: connector.platform, items: symbolGroupsOf(symbols).map(withVersion) };
}

export async function listHolidays(deps: ServerConfigDeps, organizationId: string, platformId: string) {
  const connector = await deps.connectorFor(organizationId, platformId);
  try {
    const holidays = await connector.listHolidays();
    return { platform: connector.platform, supported: true, message: null, version: holidaysVersion(holidays), holidays };
  } catch (error) {
    // Match-Trader and the MT5 Web API keep none Toolbox can reach: say so rather than show an empty list.
    if (error instanceof ConnectorError && error.code === "invalidRequest")
      return { platform: connector.platform, supported: false, message: error.message, version: null, holidays: [] };
    throw error instanceof ConnectorError ? domainErrorOf(error) : error;
  }
}

/** The fields whose values differ between two versions of an object, as { before, after }; `native` and the name left out. */
export function changedFields(before: object, after: object): { before: Record<string, unknown>; after: Record<string, unknown> } {
  const was = before as Record<string, unknown>;
  const now = after as Record<string, unknown>;
  const diff = { before: {} as Record<string, unknown>, after: {} as Record<string, unknown> };
  for (const field of new Set([...Object.keys(was), ...Object.keys(now)])) {
    if (field === "native" || field === "name") continue;
    if (configVersion({ v: was[field] }) === configVersion({ v: now[field] })) continue;
    diff.before[field] = was[field];
    diff.after[field] = now[field];
  }
  return diff;
}

/** What one apply request read of the server, once per kind, kept current as its changes land. */
class ServerView {
  private groups?: Map<string, Group>;
  private symbols?: Map<string, TradeSymbol>;
  constructor(private readonly connector: TradePlatformConnector) {}
  async group(name: string) {
    this.groups ??= new Map((await this.connector.listGroups()).map((g) => [g.name, g]));
    return this.groups.get(name);
  }
  async symbol(name: string) {
    this.symbols ??= new Map((await this.connector.listSymbols()).map((s) => [s.name, s]));
    return this.symbols.get(name);
  }
  keepGroup(group: Group) {
    this.groups?.set(group.name, group);
  }
  keepSymbol(symbol: TradeSymbol) {
    this.symbols?.set(symbol.name, symbol);
  }
}

/** Each change in the order sent, each answered on its own: one refused does not stop the next. */
export async function applyChanges(deps: ServerConfigDeps, actor: Actor, platformId: string, changes: readonly ConfigChange[]): Promise<ChangeResult[]> {
  const connector = await deps.connectorFor(actor.organizationId, platformId);
  const view = new ServerView(connector);
  const results: ChangeResult[] = [];
  for (const change of changes) results.push(await applyOne(deps, actor, platformId, connector, view, change));
  return results;
}

async function applyOne(
  deps: ServerConfigDeps,
  actor: Actor,
  platformId: string,
  connector: TradePlatformConnector,
  view: ServerView,
  change: ConfigChange,
): Promise<ChangeResult> {
  const name = change.kind === "holidays" ? null : change.name;
  const base = { kind: change.kind, name, message: null, version: null, currentVersion: null };
  try {
    if (change.kind === "holidays") {
      const before = await connector.listHolidays();
      const after = await connector.updateHolidays(change.holidays, change.expected);
      if (holidaysVersion(before) !== holidaysVersion(after))
        await audit(deps, actor, platformId, change.kind, name, { holidays: before }, { holidays: after });
      return { ...base, status: "applied", version: holidaysVersion(after), object: after };
    }
    if (change.kind === "group") {
      const before = await view.group(change.name);
      if (!before) return { ...base, status: "invalid", message: `The server has no group "${change.name}".` };
      const after = await connector.updateGroup(change.name, change.patch, change.expected);
      view.keepGroup(after);
      await auditDiff(deps, actor, platformId, change.kind, name, before, after);
      return { ...base, status: "applied", version: configVersion(after), object: after };
    }
    const before = await view.symbol(change.name);
    if (!before) return { ...base, status: "invalid", message: `The server has no symbol "${change.name}".` };
    const after = await connector.updateSymbol(change.name, change.patch, change.expected);
    view.keepSymbol(after);
    await auditDiff(deps, actor, platformId, change.kind, name, before, after);
    return { ...base, status: "applied", version: configVersion(after), object: after };
  } catch (error) {
    if (isConfigChanged(error)) {
      if (change.kind === "group") view.keepGroup(error.current as Group);
      if (change.kind === "symbol") view.keepSymbol(error.current as TradeSymbol);
      return { ...base, status: "changed", message: error.message, current: error.current, currentVersion: error.currentVersion };
    }
    if (error instanceof ConnectorError) {
      const invalid = error.code === "invalidRequest" || error.code === "rejected" || error.code === "notFound";
      return { ...base, status: invalid ? "invalid" : "failed", message: error.message };
    }
    throw error;
  }
}

async function auditDiff(
  deps: ServerConfigDeps,
  actor: Actor,
  platformId: string,
  kind: "group" | "symbol",
  name: string | null,
  before: object,
  after: object,
) {
  const diff = changedFields(before, after);
  // A change that sent every field with its current value changed nothing: nothing to record.
  if (Object.keys(diff.after).length === 0) return;
  await audit(deps, actor, platformId, kind, name, diff.before, diff.after);
}

function audit(deps: ServerConfigDeps, actor: Actor, platformId: string, kind: ConfigChange["kind"], name: string | null, before: unknown, after: unknown) {
  return recordAudit(deps.db, actor, {
    action: `${AUDIT_TARGET[kind]}.changed`,
    targetType: AUDIT_TARGET[kind],
    targetId: auditTargetId(platformId, name),
    before,
    after,
  });
}
