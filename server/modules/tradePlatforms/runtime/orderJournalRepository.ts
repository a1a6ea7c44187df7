/**
 * A platform's order journal in the database (server/db/tables/orderJournal.ts): the durable
 * OrderJournal the runtime gives the Match-Trader connector, so an order written down before a
 * restart is recognised after it (docs/connectors.md, "Orders exactly once", Match-Trader).
 */
import { and, eq, inArray } from "drizzle-orm";
import { madeBy, type OrderIntent, type OrderJournal } from "../../../connectors/matchTraderApi/orderJournal.ts";
import type { Db } from "../../../db/client.ts";
import { connectorOrderJournal } from "../../../db/tables/orderJournal.ts";

export class DbOrderJournal implements OrderJournal {
  constructor(
    private readonly db: Db,
    private readonly platformId: string,
  ) {}

  async get(requestId: string): Promise<OrderIntent | null> {
    const [row] = await this.db
      .select({ intent: connectorOrderJournal.intent })
      .from(connectorOrderJournal)
      .where(and(eq(connectorOrderJournal.platformId, this.platformId), eq(connectorOrderJournal.requestId, requestId)));
    return row ? (row.intent as OrderIntent) : null;
  }

  async put(intent: OrderIntent): Promise<void> {
    // The position an open made, or the order a place made (both UUIDs, in one column).
    const positionId = madeBy(intent);
    await this.db
      .insert(connectorOrderJournal)
      .values({ platformId: this.platformId, requestId: intent.requestId, positionId, intent })
      .onConflictDoUpdate({
        target: [connectorOrderJournal.platformId, connectorOrderJournal.requestId],
        set: { positionId, intent, updatedAt: new Date() },
      });
  }

  async openedBy(positionIds: readonly string[]): Promise<Map<string, string>> {
    if (positionIds.length === 0) return new Map();
    const rows = await this.db
      .select({ positionId: connectorOrderJournal.positionId, requestId: connectorOrderJournal.requestId })
      .from(connectorOrderJournal)
      .where(and(eq(connectorOrderJournal.platformId, this.platformId), inArray(connectorOrderJournal.positionId, [...positionIds])));
    return new Map(rows.flatMap((r) => (r.positionId === null ? [] : [[r.positionId, r.requestId] as const])));
  }
}
