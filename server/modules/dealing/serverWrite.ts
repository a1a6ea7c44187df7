/**
 * A profile written to a real server through the connector's configuration writes (docs/dealing.md
 * "Real servers"; the same `updateSymbol` as the editors, with its version check): the symbols
 * read once, the changes planned (core/dealing/serverWrite.ts), the originals kept before anything
 * is written, then each symbol written on the version read. All or nothing: a write refused (the
 * symbol changed since read) or failing undoes the ones this pass made, and the whole pass is
 * reported with the refused symbol as the server has it.
 */
import {
  planProfileWrite,
  settingsNotTaken,
  valuesDiff,
  type DealingOriginals,
  type DealingSymbolValues,
  type ExecutionProfile,
} from "../../../core/dealing/index.ts";
import { configVersion, type TradeSymbol } from "../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import { ConnectorError, isConfigChanged } from "../../connectors/errors.ts";

export interface WrittenObject {
  kind: "symbol";
  name: string;
  before: Partial<DealingSymbolValues>;
  after: Partial<DealingSymbolValues>;
}

export interface ProfileWriteResult {
  /** applied: every change written (or none needed); refused: a symbol changed since read, nothing left changed; failed: the server could not take it, nothing left changed unless `message` says so. */
  status: "applied" | "refused" | "failed";
  message: string | null;
  /** What was written (applied), each with the fields before and after. */
  objects: WrittenObject[];
  /** Symbols left alone, and why. */
  skipped: { name: string; message: string }[];
  /** The profile's settings this platform type cannot take. */
  notTaken: { setting: string; reason: string }[];
  /** The refused symbol as the server has it now. */
  current?: unknown;
}

export interface ProfileWriteDeps {
  connector: TradePlatformConnector;
  /** Keeps the originals (in the database) before anything is written, and again after. */
  keep(originals: DealingOriginals): Promise<void>;
}

/** Reads the server's symbols with their versions, and plans the writes of `profile`. */
export async function planWrite(connector: TradePlatformConnector, profile: ExecutionProfile, originals: DealingOriginals) {
  const symbols = await connector.listSymbols();
  return planProfileWrite(
    connector.platform,
    profile,
    symbols.map((symbol) => ({ symbol, version: configVersion(symbol) })),
    originals,
  );
}

export async function writePlan(
  deps: ProfileWriteDeps,
  profile: ExecutionProfile,
  originals: DealingOriginals,
  plan: ReturnType<typeof planProfileWrite>,
): Promise<ProfileWriteResult> {
  const { connector } = deps;
  const notTaken = settingsNotTaken(connector.platform, profile);
  const base = { skipped: plan.skipped, notTaken };
  await deps.keep(plan.originalsBefore);
  const done: { name: string; before: DealingSymbolValues; after: DealingSymbolValues; written: TradeSymbol }[] = [];
  for (const write of plan.writes) {
    try {
      const written = await connector.updateSymbol(write.name, write.after, write.expected);
      done.push({ name: write.name, before: write.before, after: write.after, written });
    } catch (error) {
      if (!(error instanceof ConnectorError)) throw error;
      const undone = await undo(connector, done);
      // Nothing stays changed: the originals as they were before this pass.
      if (undone.length === 0) await deps.keep(originals);
      const notUndone = undone.length > 0 ? ` Could not undo ${undone.join(", ")}: check them in the editor.` : "";
      if (isConfigChanged(error))
        return {
          ...base,
          status: "refused",
          message: `${write.name} changed on the server since it was read; nothing was written.${notUndone}`,
          objects: [],
          current: error.current,
        };
      return { ...base, status: "failed", message: `${write.name}: ${error.message} Nothing was written.${notUndone}`, objects: [] };
    }
  }
  await deps.keep(plan.originalsAfter);
  return {
    ...base,
    status: "applied",
    message: null,
    objects: done.map((d) => ({ kind: "symbol", name: d.name, ...valuesDiff(d.before, d.after) })),
  };
}

/** Writes back what this pass changed, newest first; answers the symbols it could not. */
async function undo(connector: TradePlatformConnector, done: readonly { name: string; before: DealingSymbolValues; written: TradeSymbol }[]) {
  const failed: string[] = [];
  for (const d of [...done].reverse()) {
    try {
      await connector.updateSymbol(d.name, d.before, configVersion(d.written));
    } catch {
      failed.push(d.name);
    }
  }
  return failed;
}

export async function writeProfile(deps: ProfileWriteDeps, profile: ExecutionProfile, originals: DealingOriginals): Promise<ProfileWriteResult> {
  return writePlan(deps, profile, originals, await planWrite(deps.connector, profile, originals));
}
