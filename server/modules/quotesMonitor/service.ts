/**
 * The Quotes Monitor's alert rules (docs/quotes-monitor.md#alert-rules): create, replace, delete,
 * each in one transaction with its audit row; at most ALERT_RULES_MAX per organization, names
 * unique within it. Platforms named by a rule must be the organization's.
 */
import { ALERT_RULES_MAX, thresholdsOf, type AlertRuleInput } from "../../../core/schemas/quotesMonitor.ts";
import type { Db } from "../../db/client.ts";
import { ConflictError, InvalidRequestError, NotFoundError } from "../../errors.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import { ownedPlatformIds } from "../tradePlatforms/repository.ts";
import * as repo from "./repository.ts";

const TARGET = "quoteAlertRule";
const NOT_FOUND = "No such alert rule";

const nameTaken = (name: string) => new ConflictError(`An alert rule named "${name}" already exists`);

async function checkPlatforms(db: Db, organizationId: string, input: AlertRuleInput) {
  if (input.platformIds === "all") return;
  const unique = [...new Set(input.platformIds.map((p) => p.toLowerCase()))];
  const owned = await ownedPlatformIds(db, organizationId, unique);
  if (owned.size !== unique.length) throw new InvalidRequestError("platformIds: every platform must be one of this organization's");
  if (input.kind === "crossServer" && unique.length < 2) throw new InvalidRequestError("platformIds: a cross-server rule compares at least two platforms");
}

export async function createRule(db: Db, actor: Actor, input: AlertRuleInput) {
  await checkPlatforms(db, actor.organizationId, input);
  try {
    return await db.transaction(async (tx) => {
      if ((await repo.countRules(tx, actor.organizationId)) >= ALERT_RULES_MAX)
        throw new ConflictError(`An organization has at most ${ALERT_RULES_MAX} alert rules; delete one first`);
      const rule = await repo.insertRule(tx, actor.organizationId, input, thresholdsOf(input));
      await recordAudit(tx, actor, { action: "quoteAlertRule.created", targetType: TARGET, targetId: rule.id, after: rule });
      return rule;
    });
  } catch (error) {
    if (repo.isUniqueViolation(error)) throw nameTaken(input.name);
    throw error;
  }
}

export async function replaceRule(db: Db, actor: Actor, id: string, input: AlertRuleInput) {
  await checkPlatforms(db, actor.organizationId, input);
  try {
    return await db.transaction(async (tx) => {
      const before = await repo.findRule(tx, actor.organizationId, id);
      if (!before) throw new NotFoundError(NOT_FOUND);
      const after = await repo.updateRule(tx, actor.organizationId, id, input, thresholdsOf(input));
      if (!after) throw new NotFoundError(NOT_FOUND);
      await recordAudit(tx, actor, { action: "quoteAlertRule.updated", targetType: TARGET, targetId: id, before, after });
      return after;
    });
  } catch (error) {
    if (repo.isUniqueViolation(error)) throw nameTaken(input.name);
    throw error;
  }
}

export async function removeRule(db: Db, actor: Actor, id: string) {
  await db.transaction(async (tx) => {
    const before = await repo.findRule(tx, actor.organizationId, id);
    if (!before || !(await repo.deleteRule(tx, actor.organizationId, id))) throw new NotFoundError(NOT_FOUND);
    await recordAudit(tx, actor, { action: "quoteAlertRule.deleted", targetType: TARGET, targetId: id, before });
  });
}
