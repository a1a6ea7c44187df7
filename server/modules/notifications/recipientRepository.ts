/**
 * The SQL of e-mail recipients' confirmations (docs/notifications.md, "E-mail recipients
 * confirm"): each address of an e-mail channel has a row with its confirmation token (a random
 * token, kept as its SHA-256, good for a week) and whether it confirmed; the channel sends to
 * confirmed addresses only. The mails themselves: ./confirmationMail.ts.
 */
import crypto from "node:crypto";
import { and, eq, gt, inArray, isNotNull, notInArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { notificationEmailRecipients } from "../../db/schema.ts";
import type { DbOrTx } from "../../db/client.ts";

const r = notificationEmailRecipients;

/** How long a confirmation link works. */
export const CONFIRMATION_DAYS = 7;

export interface RecipientState {
  address: string;
  confirmed: boolean;
}

export interface ConfirmationRequest {
  address: string;
  token: string;
}

const hashOf = (token: string) => crypto.createHash("sha256").update(token).digest("hex");

/**
 * Makes the channel's recipient rows match its addresses: removed ones go (a confirmation does
 * not carry over to an address added again later), new ones are pending with a fresh token.
 * Returns the new addresses' tokens, to mail once the transaction has committed.
 */
export async function syncRecipients(
  tx: DbOrTx,
  channel: { id: string; organizationId: string },
  addresses: readonly string[],
): Promise<ConfirmationRequest[]> {
  const wanted = [...new Set(addresses.map((a) => a.toLowerCase()))];
  await tx.delete(r).where(and(eq(r.channelId, channel.id), wanted.length > 0 ? notInArray(r.address, wanted) : undefined));
  const kept = new Set((await tx.select({ address: r.address }).from(r).where(eq(r.channelId, channel.id))).map((row) => row.address));
  const requests = wanted.filter((a) => !kept.has(a)).map((address) => ({ address, token: crypto.randomBytes(32).toString("base64url") }));
  if (requests.length > 0)
    await tx
      .insert(r)
      .values(requests.map(({ address, token }) => ({ channelId: channel.id, organizationId: channel.organizationId, address, tokenHash: hashOf(token) })));
  return requests;
}

/** Fresh tokens for the channel's addresses that have not confirmed (the links mailed before stop working). */
export async function renewPending(db: DbOrTx, channelId: string): Promise<ConfirmationRequest[]> {
  const pending = await db
    .select({ address: r.address })
    .from(r)
    .where(and(eq(r.channelId, channelId), sql`${r.confirmedAt} is null`));
  const requests: ConfirmationRequest[] = [];
  for (const { address } of pending) {
    const token = crypto.randomBytes(32).toString("base64url");
    await db
      .update(r)
      .set({ tokenHash: hashOf(token), requestedAt: new Date() })
      .where(and(eq(r.channelId, channelId), eq(r.address, address)));
    requests.push({ address, token });
  }
  return requests;
}

/** Each channel's recipients (by address) and whether they confirmed, by channel id. */
export async function recipientStates(db: DbOrTx, channelIds: readonly string[]): Promise<Map<string, RecipientState[]>> {
  const states = new Map<string, RecipientState[]>();
  if (channelIds.length === 0) return states;
  const rows = await db
    .select({ channelId: r.channelId, address: r.address, confirmedAt: r.confirmedAt })
    .from(r)
    .where(inArray(r.channelId, [...channelIds]))
    .orderBy(r.address);
  for (const row of rows) {
    const list = states.get(row.channelId) ?? [];
    list.push({ address: row.address, confirmed: row.confirmedAt !== null });
    states.set(row.channelId, list);
  }
  return states;
}

/** The addresses of a channel that confirmed: the only ones it mails. */
export async function confirmedAddresses(db: Db, channelId: string): Promise<string[]> {
  const rows = await db
    .select({ address: r.address })
    .from(r)
    .where(and(eq(r.channelId, channelId), isNotNull(r.confirmedAt)));
  return rows.map((row) => row.address);
}

/** Confirms the address whose link holds this token; false when the link is unknown, used or expired. */
export async function confirmRecipient(db: Db, token: string): Promise<boolean> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return false;
  const rows = await db
    .update(r)
    .set({ confirmedAt: new Date(), tokenHash: null })
    .where(and(eq(r.tokenHash, hashOf(token)), gt(r.requestedAt, sql`now() - make_interval(days => ${CONFIRMATION_DAYS})`)))
    .returning({ address: r.address });
  return rows.length > 0;
}
