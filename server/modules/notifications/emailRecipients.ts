/**
 * E-mail recipients confirm before a channel mails them (docs/notifications.md, "E-mail
 * recipients confirm"): anyone who may edit an organization's channels could otherwise make
 * Toolbox mail any address, repeatedly. Each address of an e-mail channel gets a confirmation
 * link (a random token, kept as its SHA-256, good for a week); the channel sends to confirmed
 * addresses only. Every mail counts against the organization's hourly allowance (./mailLimit.ts).
 *
 * The messages carry no name an organization chose (its name, a channel's or a platform's could
 * be phishing text): fixed wording and an identifier.
 */
import crypto from "node:crypto";
import { and, eq, gt, inArray, isNotNull, notInArray, sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import { notificationEmailRecipients } from "../../db/schema.ts";
import type { Mailer } from "../../mail/mailer.ts";
import type { DbOrTx } from "../audit/record.ts";
import { takeMailAllowance } from "./mailLimit.ts";

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

/** The short identifier a channel's mails name it by (never its name). */
export const channelRef = (channelId: string) => channelId.slice(0, 8);

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

export interface ConfirmationMailer {
  db: Db;
  mailer: Mailer;
  publicUrl: string;
  maxEmailsPerHour: number;
  log: FastifyBaseLogger;
}

/**
 * Mails each request its confirmation link, one message per address, each counted against the
 * organization's hourly allowance; past it the rest stay pending (sent again from the channel's
 * settings later). Returns how many were sent.
 */
export async function mailConfirmations(
  o: ConfirmationMailer,
  organizationId: string,
  channelId: string,
  requests: readonly ConfirmationRequest[],
): Promise<number> {
  let sent = 0;
  for (const { address, token } of requests) {
    if (!(await takeMailAllowance(o.db, organizationId, 1, o.maxEmailsPerHour))) {
      o.log.warn(
        { organizationId, channelId, withheld: requests.length - sent },
        "confirmation e-mails withheld: the organization's hourly e-mail limit is reached",
      );
      break;
    }
    const link = `${o.publicUrl}/api/notifications/recipients/confirm?token=${token}`;
    try {
      await o.mailer.send({
        to: address,
        subject: `Confirm e-mail notifications from Toolbox (channel ${channelRef(channelId)})`,
        text: [
          "A Toolbox organization added this address to one of its notification channels",
          `(channel ${channelRef(channelId)}, organization ${organizationId}).`,
          "",
          "Toolbox sends it nothing unless you confirm. To receive its notifications, open:",
          link,
          "",
          `The link works until ${new Date(Date.now() + CONFIRMATION_DAYS * 86_400_000).toUTCString()}.`,
          "If you did not expect this, ignore this message: nothing more will be sent to you.",
        ].join("\n"),
      });
      sent++;
    } catch (err) {
      o.log.warn({ err: (err as Error).message, organizationId, channelId }, "a confirmation e-mail could not be sent");
    }
  }
  return sent;
}
