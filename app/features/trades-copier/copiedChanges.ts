/**
 * What an edit of a link means for the positions it has already copied (docs/trades-copier.md
 * "Links and the screen"): the engine decides each source action with the settings of the moment,
 * and never reopens, resizes or turns around a copy already made, so a dealer is told, per
 * follower, what the copies already open will and will not follow once the edit is saved.
 */
import type { FollowerDraft, LinkDraft } from "./draft";

const keyOf = (f: Pick<FollowerDraft, "platformId" | "login">) => `${f.platformId}:${f.login.trim()}`;

const VOLUME_FIELDS = ["volumeMode", "volumeValue", "alignContractSize", "minLots", "maxLots", "forceMinimum"] as const;
const SYMBOL_FIELDS = ["pairs", "sourcePrefix", "sourceSuffix", "followerPrefix", "followerSuffix", "allowedSymbols", "blockedSymbols"] as const;
const STOP_FIELDS = ["stopsMode", "slPoints", "tpPoints"] as const;
const RISK_FIELDS = ["equityFloorAction", "equityFloorAmount", "dailyLossAction", "dailyLossAmount"] as const;

function changed(before: FollowerDraft, after: FollowerDraft, fields: readonly (keyof FollowerDraft)[]): boolean {
  return fields.some((f) => before[f] !== after[f]);
}

/** One line per consequence, in a dealer's words; empty when the edit changes nothing for copies already open. */
export function copiedPositionChanges(before: LinkDraft, after: LinkDraft, nameOf: (platformId: string) => string): string[] {
  const lines: string[] = [];
  const label = (f: FollowerDraft) => `${nameOf(f.platformId)} ${f.login.trim()}`;
  if (before.sourcePlatformId !== after.sourcePlatformId || before.sourceLogin.trim() !== after.sourceLogin.trim()) {
    lines.push("The source account changes: copies of the old source's positions stay open on the followers and are no longer closed by it.");
  }
  if (before.enabled && !after.enabled) {
    lines.push("The link is disabled: nothing is copied, closes included; copies already open stay open (resync on the status page puts them right later).");
  }
  const afterByKey = new Map(after.followers.map((f) => [keyOf(f), f]));
  const beforeKeys = new Set(before.followers.map(keyOf));
  for (const old of before.followers) {
    const now = afterByKey.get(keyOf(old));
    if (!now) {
      lines.push(`${label(old)} is removed: its copies already open stay open and no longer follow the source.`);
      continue;
    }
    const who = label(now);
    if (old.enabled && !now.enabled) lines.push(`${who} is disabled: nothing is copied to it, closes included; its open copies stay as they are.`);
    if (!old.closeOnly && now.closeOnly)
      lines.push(`${who} goes close-only: no new copies; closes, partial closes and stop changes still reach its open copies.`);
    if (changed(old, now, VOLUME_FIELDS)) {
      lines.push(
        `${who}: the new volume settings apply to new copies only; open copies keep their volume, and a partial close of the source closes the same share of them.`,
      );
    }
    if (old.direction !== now.direction) {
      lines.push(`${who}: the new direction applies to new copies only; open copies keep their side, and stop changes reach them as they were copied.`);
    }
    if (changed(old, now, SYMBOL_FIELDS)) {
      lines.push(`${who}: the symbol rules apply to new copies only; open copies keep their symbol and still follow their source position.`);
    }
    if (changed(old, now, STOP_FIELDS)) {
      lines.push(`${who}: the stops setting applies from the source's next stop change; open copies keep their SL and TP until then.`);
    }
    if (old.copyPartialCloses !== now.copyPartialCloses) {
      lines.push(
        now.copyPartialCloses
          ? `${who}: partial closes of the source reach open copies from now (earlier ones are not made up).`
          : `${who}: partial closes are no longer copied; open copies are closed whole when their source position closes.`,
      );
    }
    if (old.copyPendingOrders !== now.copyPendingOrders && !now.copyPendingOrders) {
      lines.push(`${who}: pending orders are no longer copied; its copied orders already waiting are no longer modified or cancelled with the source's.`);
    }
    if (changed(old, now, RISK_FIELDS)) lines.push(`${who}: the risk stops are checked with the new figures from now, against its copies already open too.`);
  }
  for (const added of after.followers) {
    if (beforeKeys.has(keyOf(added)) || added.login.trim() === "") continue;
    lines.push(
      added.copyExistingPositions
        ? `${label(added)} is added: the source's positions open now are copied to it.`
        : `${label(added)} is added: only positions the source opens from now are copied to it.`,
    );
  }
  return lines;
}
