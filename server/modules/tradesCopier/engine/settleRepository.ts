/**
 * The platform's answers recorded in the copier's ledger, many at once. A fan-out to a thousand
 * followers gets its answers within a few milliseconds of each other; each recorded by its own
 * UPDATE was a thousand statements to build, send and parse. Answers that arrive in the same turn of
 * the event loop are recorded by one statement (one array per column, `unnest`), and each caller
 * still learns whether its own row was settled (its lease still this holder's, the row still
 * pending), exactly as a single UPDATE would tell it.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { rowsOf } from "../../../db/rows.ts";
import { copyLedger } from "../../../db/schema.ts";

export interface Outcome {
  state: "done" | "failed";
  reason?: string | null;
  /** The follower's position or order; undefined keeps the row's. */
  followerPositionId?: string | null;
}

interface Waiting {
  requestId: string;
  holder: string;
  outcome: Outcome;
  resolve(settled: boolean): void;
  reject(err: unknown): void;
}

const queues = new WeakMap<Db, Waiting[]>();

/** The platform's answer: done or failed (with its words); false when the lease is no longer this holder's. */
export function settle(db: Db, requestId: string, holder: string, outcome: Outcome): Promise<boolean> {
  return new Promise((resolve, reject) => {
    let queue = queues.get(db);
    if (!queue) {
      queue = [];
      queues.set(db, queue);
      setImmediate(() => {
        queues.delete(db);
        void flush(db, queue!);
      });
    }
    queue.push({ requestId, holder, outcome, resolve, reject });
  });
}

async function flush(db: Db, batch: Waiting[]): Promise<void> {
  const t = copyLedger;
  const column = <T>(value: (w: Waiting) => T) => sql.param(batch.map(value));
  try {
    const result = await db.execute(sql`
      update ${t} set
        state = v.state,
        reason = v.reason,
        follower_position_id = case when v.keep_position then ${t}.follower_position_id else v.follower_position_id end,
        acked_at = now(),
        lease_until = null,
        updated_at = now()
      from unnest(
        ${column((w) => w.requestId)}::text[], ${column((w) => w.holder)}::text[], ${column((w) => w.outcome.state)}::text[],
        ${column((w) => w.outcome.reason ?? null)}::text[], ${column((w) => w.outcome.followerPositionId ?? null)}::text[],
        ${column((w) => w.outcome.followerPositionId === undefined)}::boolean[]
      ) as v(request_id, holder, state, reason, follower_position_id, keep_position)
      where ${t}.request_id = v.request_id and ${t}.lease_holder = v.holder and ${t}.state = 'pending'
      returning ${t}.request_id`);
    const settled = new Set(rowsOf<{ request_id: string }>(result).map((r) => r.request_id));
    for (const w of batch) w.resolve(settled.has(w.requestId));
  } catch (err) {
    for (const w of batch) w.reject(err);
  }
}
