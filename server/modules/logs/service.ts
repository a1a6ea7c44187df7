/** What the logs area changes: the audit retention setting, in one transaction with its audit row. */
import type { LogSettings } from "../../../core/schemas/logs.ts";
import type { Db } from "../../db/client.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import { getLogSettings, putLogSettings } from "./repository.ts";

export async function saveLogSettings(db: Db, actor: Actor, organizationId: string, settings: LogSettings): Promise<LogSettings> {
  const before = await getLogSettings(db, organizationId);
  await db.transaction(async (tx) => {
    await putLogSettings(tx, organizationId, settings.auditRetentionDays);
    await recordAudit(tx, actor, {
      action: "logSettings.updated",
      targetType: "organization",
      targetId: organizationId,
      before,
      after: settings,
    });
  });
  return getLogSettings(db, organizationId);
}
