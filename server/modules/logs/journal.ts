/**
 * Each platform's server journal, read through its connector (`journal`): Toolbox does not store
 * journals, the platform keeps them. The list answers the newest entries of a time window; the
 * live tail (GET /api/logs/journal/live, Server-Sent Events like the platforms' live stream) asks
 * the connector every second for what came after the newest entry it sent.
 *   event: entry   data: JournalEntryView   — each new entry matching the filters, oldest first;
 *   event: status  data: {connected, message?} — when reading the platform fails or recovers;
 *   `: ping` every 15 s.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { JournalEntry, JournalFilter, JournalLevel } from "../../../core/trading/index.ts";
import type { JournalEntryView, JournalPage } from "../../../core/schemas/logs.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import { sseHub } from "../../streams/sse.ts";

/** The connector's largest page; windows with more entries are read page after page. */
const CHUNK = 1000;
/** At most this many entries are read for one list (then the answer says `truncated`). */
const MAX_SCANNED = 20_000;
const FAR_FUTURE = Date.UTC(9999, 0, 1);

export const TAIL_POLL_MS = 1_000;

export function journalView(entry: JournalEntry): JournalEntryView {
  return { ...entry, time: new Date(entry.time).toISOString() };
}

export interface JournalFilters {
  levels?: string[];
  text?: string;
  login?: string;
}

const filterOf = (f: JournalFilters): JournalFilter => ({
  ...(f.levels && f.levels.length > 0 ? { levels: f.levels as JournalLevel[] } : {}),
  ...(f.text ? { text: f.text } : {}),
  ...(f.login ? { login: f.login } : {}),
});

/**
 * The newest `limit` entries within [from, to] matching the filters, newest first. The connector
 * answers oldest first, so the window is read forward a page at a time, keeping the last `limit`.
 */
export async function readJournal(
  connector: TradePlatformConnector,
  query: JournalFilters & { from: number; to: number; limit: number },
): Promise<JournalPage> {
  const filter = filterOf(query);
  let kept: JournalEntry[] = [];
  let matched = 0;
  let from = query.from;
  const seenAtFrom = new Set<string>();
  for (let scanned = 0; scanned < MAX_SCANNED;) {
    const page = await connector.journal({ ...filter, from, to: query.to, limit: CHUNK });
    const fresh = page.filter((e) => !(e.time === from && seenAtFrom.has(e.id)));
    scanned += page.length;
    matched += fresh.length;
    kept = kept.concat(fresh);
    if (kept.length > query.limit) kept = kept.slice(kept.length - query.limit);
    if (page.length < CHUNK) return { items: kept.reverse().map(journalView), truncated: matched > query.limit };
    const last = page[page.length - 1]!;
    if (last.time !== from) seenAtFrom.clear();
    from = last.time;
    for (const e of page) if (e.time === from) seenAtFrom.add(e.id);
    if (fresh.length === 0) break; // a whole page at one instant: cannot go further by time
  }
  return { items: kept.reverse().map(journalView), truncated: true };
}

export interface JournalTails {
  open(request: FastifyRequest, reply: FastifyReply, tail: { connect: () => Promise<TradePlatformConnector>; filters: JournalFilters; since: number }): void;
  closeAll(): void;
}

export function journalTails(): JournalTails {
  const hub = sseHub();
  return {
    open(request, reply, { connect, filters, since }) {
      const stream = hub.open(request, reply);
      const filter = filterOf(filters);
      let cursor = since;
      let sentAtCursor = new Set<string>();
      let healthy: boolean | null = null;
      let timer: ReturnType<typeof setTimeout> | undefined;

      const poll = async () => {
        try {
          const connector = await connect();
          for (;;) {
            const page = await connector.journal({ ...filter, from: cursor, to: FAR_FUTURE, limit: CHUNK });
            const fresh = page.filter((e) => e.time > cursor || (e.time === cursor && !sentAtCursor.has(e.id)));
            for (const e of fresh) {
              if (stream.closed) return;
              stream.send("entry", journalView(e));
              if (e.time > cursor) {
                cursor = e.time;
                sentAtCursor = new Set();
              }
              sentAtCursor.add(e.id);
            }
            if (page.length < CHUNK || fresh.length === 0) break;
          }
          if (healthy !== true) stream.send("status", { connected: true });
          healthy = true;
        } catch (err) {
          if (healthy !== false) stream.send("status", { connected: false, message: err instanceof Error ? err.message : "The journal cannot be read." });
          healthy = false;
        }
      };
      const loop = async () => {
        if (stream.closed) return;
        await poll();
        if (!stream.closed) timer = setTimeout(() => void loop(), TAIL_POLL_MS);
      };
      stream.onClose(() => clearTimeout(timer));
      void loop();
    },
    closeAll: hub.closeAll,
  };
}
