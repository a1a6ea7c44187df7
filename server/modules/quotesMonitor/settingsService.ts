/**
 * The Quotes Monitor's settings of an organization: its symbol map (the comparison and the
 * cross-server rule, core/schemas/quoteComparison.ts) and its market holidays
 * (core/schemas/quoteHolidays.ts). Each replaced whole, in one transaction with its audit row;
 * the platforms a map pairs must be the organization's.
 */
import type { SymbolMap } from "../../../core/schemas/quoteComparison.ts";
import type { Holiday } from "../../../core/schemas/quoteHolidays.ts";
import type { Db } from "../../db/client.ts";
import { InvalidRequestError } from "../../errors.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import { ownedPlatformIds } from "../tradePlatforms/repository.ts";
import { lockSettings, writeSettings } from "./settingsRepository.ts";

export async function replaceSymbolMap(db: Db, actor: Actor, input: SymbolMap): Promise<SymbolMap> {
  const symbolMap: SymbolMap = { ...input, pairs: input.pairs.map((p) => ({ ...p, platformId: p.platformId.toLowerCase() })) };
  const ids = [...new Set(symbolMap.pairs.map((p) => p.platformId))];
  if (ids.length > 0 && (await ownedPlatformIds(db, actor.organizationId, ids)).size !== ids.length)
    throw new InvalidRequestError("pairs: every platform must be one of this organization's");
  await db.transaction(async (tx) => {
    const before = await lockSettings(tx, actor.organizationId);
    await writeSettings(tx, actor.organizationId, { symbolMap });
    await recordAudit(tx, actor, {
      action: "quoteSymbolMap.updated",
      targetType: "quoteSymbolMap",
      targetId: actor.organizationId,
      before: before.symbolMap,
      after: symbolMap,
    });
  });
  return symbolMap;
}

export async function replaceHolidays(db: Db, actor: Actor, holidays: Holiday[]): Promise<Holiday[]> {
  const sorted = [...holidays].sort((a, b) => a.date.localeCompare(b.date) || a.symbolMask.localeCompare(b.symbolMask));
  await db.transaction(async (tx) => {
    const before = await lockSettings(tx, actor.organizationId);
    await writeSettings(tx, actor.organizationId, { holidays: sorted });
    await recordAudit(tx, actor, {
      action: "quoteHolidays.updated",
      targetType: "quoteHolidays",
      targetId: actor.organizationId,
      before: before.holidays,
      after: sorted,
    });
  });
  return sorted;
}
