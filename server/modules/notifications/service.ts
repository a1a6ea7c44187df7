/**
 * Notification settings and channels: each change in one transaction with its audit row. Secrets
 * (webhook secret, Telegram bot token) are encrypted at rest with the channel id as associated
 * data, never returned or logged; targets pass the address checks of server/net/targets.ts.
 */
import {
  EmailSettingsSchema,
  TelegramSettingsSchema,
  WebhookSettingsSchema,
  type Channel,
  type ChannelKind,
  type CreateChannel,
  type NotificationSettings,
  type UpdateChannel,
} from "../../../core/schemas/notifications.ts";
import type { Db } from "../../db/client.ts";
import { InvalidRequestError, NotFoundError } from "../../errors.ts";
import { urlProblem, type TargetPolicy } from "../../net/targets.ts";
import type { SecretCipher } from "../../secrets/cipher.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import { recipientStates, syncRecipients, type ConfirmationRequest, type RecipientState } from "./recipientRepository.ts";
import {
  findChannel,
  getSettings,
  insertChannel,
  listChannels,
  putSettings,
  removeChannel,
  setChannel,
  type ChannelChanges,
  type ChannelRow,
} from "./repository.ts";

export interface NotificationDeps {
  db: Db;
  cipher: SecretCipher;
  policy: TargetPolicy;
  /** Mails an e-mail channel's new addresses their confirmation links (after the change committed). */
  confirmRecipients: (organizationId: string, channelId: string, requests: readonly ConfirmationRequest[]) => void;
}

const TARGET = "notificationChannel";

export function channelView(row: ChannelRow, recipients?: RecipientState[]): Channel {
  return {
    ...(row.kind === "email" ? { recipients: recipients ?? [] } : {}),
    id: row.id,
    kind: row.kind as ChannelKind,
    name: row.name,
    enabled: row.enabled,
    settings: row.settings as Record<string, unknown>,
    hasSecret: row.secretCiphertext !== null,
    consecutiveFailures: row.consecutiveFailures,
    disabledReason: row.disabledReason,
    createdAt: row.createdAt.toISOString(),
  };
}

/** What may be written in the audit log: the channel without its secret. */
function audited(row: ChannelRow) {
  return { kind: row.kind, name: row.name, enabled: row.enabled, settings: row.settings };
}

function settingsOf(kind: ChannelKind, raw: unknown, policy: TargetPolicy): Record<string, unknown> {
  const schema = kind === "email" ? EmailSettingsSchema : kind === "telegram" ? TelegramSettingsSchema : WebhookSettingsSchema;
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    throw new InvalidRequestError(`settings: ${parsed.error.issues.map((i) => `${i.path.join(".") || "settings"} ${i.message}`).join("; ")}`);
  if (kind === "webhook") {
    const problem = urlProblem(policy, (parsed.data as { url: string }).url);
    if (problem) throw new InvalidRequestError(`url: ${problem}`);
  }
  return parsed.data;
}

export async function createChannel(deps: NotificationDeps, actor: Actor, body: CreateChannel): Promise<Channel> {
  const settings = settingsOf(body.kind, body.settings, deps.policy);
  const secret = body.kind === "webhook" ? body.secret : body.kind === "telegram" ? body.botToken : null;
  const created = await deps.db.transaction(async (tx) => {
    let row = await insertChannel(tx, { organizationId: actor.organizationId, kind: body.kind, name: body.name, enabled: body.enabled, settings });
    // The secret is encrypted bound to the channel's id, known only once the row exists.
    if (secret) row = (await setChannel(tx, row.id, { secretCiphertext: deps.cipher.encrypt(secret, row.id) }))!;
    await recordAudit(tx, actor, { action: "notificationChannel.created", targetType: TARGET, targetId: row.id, after: audited(row) });
    const confirmations = body.kind === "email" ? await syncRecipients(tx, row, body.settings.to) : [];
    return { row, confirmations, recipients: (await recipientStates(tx, [row.id])).get(row.id) };
  });
  deps.confirmRecipients(actor.organizationId, created.row.id, created.confirmations);
  return channelView(created.row, created.recipients);
}

export async function updateChannel(deps: NotificationDeps, actor: Actor, id: string, body: UpdateChannel): Promise<Channel> {
  const { channel, confirmations } = await deps.db.transaction(async (tx) => {
    const before = await findChannel(tx, actor.organizationId, id);
    if (!before) throw new NotFoundError("No such notification channel");
    const kind = before.kind as ChannelKind;
    if (body.secret !== undefined && kind !== "webhook") throw new InvalidRequestError("secret: only a webhook has a secret");
    if (body.botToken !== undefined && kind !== "telegram") throw new InvalidRequestError("botToken: only a Telegram channel has a bot token");
    const set: ChannelChanges = { updatedAt: new Date() };
    if (body.name !== undefined) set.name = body.name;
    if (body.settings !== undefined) set.settings = settingsOf(kind, body.settings, deps.policy);
    if (body.enabled !== undefined) {
      set.enabled = body.enabled;
      // Switched on again by a person: a fresh start.
      if (body.enabled) Object.assign(set, { consecutiveFailures: 0, disabledReason: null });
    }
    const secret = body.secret ?? body.botToken;
    if (secret !== undefined) set.secretCiphertext = deps.cipher.encrypt(secret, id);
    const after = await setChannel(tx, id, set);
    await recordAudit(tx, actor, {
      action: "notificationChannel.changed",
      targetType: TARGET,
      targetId: id,
      before: audited(before),
      after: { ...audited(after!), ...(secret !== undefined ? { secret: "changed" } : {}) },
    });
    const confirmations = kind === "email" && set.settings ? await syncRecipients(tx, after!, (set.settings as { to: string[] }).to) : [];
    return { channel: channelView(after!, (await recipientStates(tx, [id])).get(id)), confirmations };
  });
  deps.confirmRecipients(actor.organizationId, id, confirmations);
  return channel;
}

export async function deleteChannel(deps: NotificationDeps, actor: Actor, id: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const before = await findChannel(tx, actor.organizationId, id);
    if (!before) throw new NotFoundError("No such notification channel");
    await removeChannel(tx, id);
    // Rules naming it keep working: an id that names no channel is skipped.
    await recordAudit(tx, actor, { action: "notificationChannel.deleted", targetType: TARGET, targetId: id, before: audited(before) });
  });
}

export async function saveSettings(deps: NotificationDeps, actor: Actor, settings: NotificationSettings): Promise<NotificationSettings> {
  return deps.db.transaction(async (tx) => {
    const known = new Set((await listChannels(tx, actor.organizationId)).map((c) => c.id));
    for (const [type, rule] of Object.entries(settings.rules)) {
      if (rule && rule.channels !== "all") {
        const unknown = rule.channels.find((id) => !known.has(id));
        if (unknown) throw new InvalidRequestError(`rules.${type}.channels: ${unknown} is not a channel of this organization`);
      }
    }
    const before = await getSettings(tx, actor.organizationId);
    await putSettings(tx, actor.organizationId, settings);
    await recordAudit(tx, actor, {
      action: "notificationSettings.changed",
      targetType: "notificationSettings",
      targetId: actor.organizationId,
      before,
      after: settings,
    });
    return settings;
  });
}
