/**
 * A channel that keeps failing: each delivery that gave up counts one more failure in a row, and
 * at `disableAfter` the channel is switched off, with a notice for the administrators' inboxes
 * (docs/notifications.md).
 */
import type { Db } from "../../db/client.ts";
import { countChannelFailure, disableChannel } from "./centerRepository.ts";
import type { Notice } from "./notices.ts";
import type { ChannelRow } from "./repository.ts";

/** Counts the failure; returns the notice to send when this one switched the channel off. */
export async function channelGaveUp(db: Db, disableAfter: number, channel: ChannelRow, error: string): Promise<Notice | undefined> {
  const row = await countChannelFailure(db, channel.id);
  if (!row || !row.enabled || row.consecutiveFailures < disableAfter) return undefined;
  const reason = `Switched off after ${row.consecutiveFailures} failed deliveries in a row; the last: ${error}`.slice(0, 500);
  if (!(await disableChannel(db, channel.id, reason))) return undefined;
  return {
    organizationId: row.organizationId,
    type: "channelDisabled",
    title: `Notification channel "${row.name}" switched off`,
    body: reason,
    link: "/settings/notifications",
    dedupeKey: `channelDisabled:${row.id}:${Date.now()}`,
    inboxOnly: true,
    members: "admins",
  };
}
