/**
 * Every leverage change Flexible Leverage makes, recorded once and told once
 * (docs/flexible-leverage.md "Where the engine runs"): a row of `leverage_changes` keyed on the
 * change (unique per platform), and `leverageChanged` on the bus for the inbox, published only by
 * the caller whose insert landed. Two sources:
 *  - the simulated server's plugin: heard on the node running the server (only it hears them),
 *    keyed `plugin:{login}:{server instant}`, so a round replayed after a takeover, heard again,
 *    records and publishes nothing more;
 *  - Toolbox's runner (./runner.ts): its intent, written before the change is sent.
 * And the read of one account's changes, newest first (the account's detail).
 */
import type { FastifyInstance } from "fastify";
import type { LeverageChange as PluginChange } from "../../connectors/simulated/engine/flexibleLeverage.ts";
import type { Db } from "../../db/client.ts";
import type { DomainEvent } from "../../events/types.ts";
import { insertChange, organizationOfPlatform, type LeverageChangeRow } from "./changesRepository.ts";

export { changesOfAccount, changesOfPlatform, insertChange, type LeverageChangeRow } from "./changesRepository.ts";

export const PLUGIN_NAME = "Flexible Leverage plugin";
export const RUNNER_NAME = "Toolbox (Flexible Leverage rules)";

/** The key of a plugin's change: the account and the server's instant (a round changes an account once). */
export const pluginChangeKey = (change: Pick<PluginChange, "login" | "at">) => `plugin:${change.login}:${change.at}`;

/** `leverageChanged` for a recorded change, with the bus message id derived from its key. */
export function changedEvent(row: LeverageChangeRow): { event: DomainEvent; id: string } {
  return {
    event: {
      type: "leverageChanged",
      organizationId: row.organizationId,
      platformId: row.platformId,
      login: row.login,
      from: row.fromLeverage,
      to: row.toLeverage,
      plugin: row.source === "plugin" ? PLUGIN_NAME : RUNNER_NAME,
      source: row.source,
      rule: row.ruleName,
      reason: row.reason,
      changeId: row.id,
    },
    id: `leverageChanged:${row.platformId}:${row.key}`,
  };
}

export interface ChangeRecorderDeps {
  db: Db;
  publish(event: DomainEvent, id: string): Promise<void>;
  warn(err: unknown, message: string): void;
}

/** Records a simulated plugin's round (on the node running the server) and publishes what was new. Answers the rows recorded. */
export async function recordPluginChanges(deps: ChangeRecorderDeps, platformId: string, changes: readonly PluginChange[]): Promise<LeverageChangeRow[]> {
  const organizationId = await organizationOfPlatform(deps.db, platformId);
  if (!organizationId) return []; // deleted meanwhile
  const recorded: LeverageChangeRow[] = [];
  for (const change of changes) {
    const row = await insertChange(deps.db, {
      organizationId,
      platformId,
      login: change.login,
      key: pluginChangeKey(change),
      fromLeverage: change.from,
      toLeverage: change.to,
      ruleName: change.ruleName,
      tierIndex: change.tierIndex,
      windowKind: change.windowKind,
      reason: change.reason,
      source: "plugin",
      status: "applied",
      changedAt: new Date(change.at),
    });
    if (!row) continue;
    recorded.push(row);
    const { event, id } = changedEvent(row);
    await deps.publish(event, id).catch((err: unknown) => deps.warn(err, "flexible leverage: a change could not be published"));
  }
  return recorded;
}

/** Hears the plugin's changes of the simulated servers running on this node, and records them (one round at a time, in order). */
export async function pluginChangesPlugin(app: FastifyInstance) {
  const log = app.log.child({ module: "flexibleLeverage" });
  const deps: ChangeRecorderDeps = {
    db: app.ctx.database.db,
    publish: (event, id) => app.bus.publish(event, { ids: [id] }),
    warn: (err, message) => log.warn({ err }, message),
  };
  let queue: Promise<unknown> = Promise.resolve();
  const stop = app.platforms.onSimulatedLeverageChanges((platformId, changes) => {
    queue = queue
      .then(() => recordPluginChanges(deps, platformId, changes))
      .catch((err: unknown) => log.warn({ err, platformId }, "flexible leverage: the plugin's changes could not be recorded"));
  });
  app.addHook("onClose", async () => {
    stop();
    await queue;
  });
}
