/**
 * Ledger rows written straight into copy_ledger, standing for the copier engine's work in the
 * status tests (the engine writes them in production; the status page only reads them).
 */
import crypto from "node:crypto";
import type { AppContext } from "../../../server/context.ts";
import { copyLedger } from "../../../server/db/schema.ts";

export interface LedgerRow {
  organizationId: string;
  linkId: string;
  follower: { platformId: string; login: string };
  state: "pending" | "done" | "failed" | "skipped";
  /** When the engine decided; the other times are laid out from it with the stage latencies below (whole ms: a Date holds no less). */
  decidedAt: Date;
  eventToEngine?: number;
  decision?: number;
  /** Decision to send. */
  toSend?: number;
  /** Send to acknowledgement; only for done and failed rows. */
  sendToAck?: number;
  reason?: string | null;
  sourceId?: string;
  sourceAction?: string;
  followerAction?: string | null;
  followerPositionId?: string | null;
  symbol?: string;
  volume?: string;
  requestId?: string;
}

/** What a row's times are, from the stage latencies it was given. */
export function timesOf(row: LedgerRow) {
  const decidedAt = row.decidedAt.getTime();
  const receivedAt = decidedAt - (row.decision ?? 1);
  const sourceTime = receivedAt - (row.eventToEngine ?? 5);
  const sent = row.state === "done" || row.state === "failed";
  const sentAt = sent ? decidedAt + (row.toSend ?? 1) : null;
  const ackedAt = sent && sentAt !== null ? sentAt + (row.sendToAck ?? 20) : null;
  return { sourceTime, receivedAt, decidedAt, sentAt, ackedAt };
}

export async function insertLedger(ctx: AppContext, rows: readonly LedgerRow[]): Promise<void> {
  if (rows.length === 0) return;
  await ctx.database.db.insert(copyLedger).values(
    rows.map((row) => {
      const t = timesOf(row);
      const skipped = row.state === "skipped";
      return {
        requestId: row.requestId ?? crypto.randomUUID(),
        organizationId: row.organizationId,
        linkId: row.linkId,
        followerPlatformId: row.follower.platformId,
        followerLogin: row.follower.login,
        sourceId: row.sourceId ?? `position:${crypto.randomInt(1, 1e9)}`,
        sourceAction: row.sourceAction ?? "open",
        followerAction: row.followerAction !== undefined ? row.followerAction : skipped ? null : "open",
        state: row.state,
        reason: row.reason ?? null,
        symbol: row.symbol ?? "EURUSD",
        volume: row.volume ?? "0.2",
        followerPositionId: row.followerPositionId ?? null,
        attempts: row.state === "pending" ? 0 : 1,
        sourceTime: new Date(t.sourceTime),
        receivedAt: new Date(t.receivedAt),
        decidedAt: new Date(t.decidedAt),
        sentAt: t.sentAt === null ? null : new Date(t.sentAt),
        ackedAt: t.ackedAt === null ? null : new Date(t.ackedAt),
      };
    }),
  );
}
