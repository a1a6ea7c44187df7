import { bigint, customType, index, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { tradePlatforms } from "./platforms.ts";

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => "bytea" });

/**
 * A simulated platform's server, kept in the database so it is one server for every node and
 * survives restarts (decision 0069, server/modules/tradePlatforms/runtime/simulatedHost.ts):
 * which node runs it (a lease like the feed's: until `expires_at`, on the database's clock;
 * `epoch` grows at every takeover and fences the old holder's writes), what it was started with
 * (`identity`: a change of the platform's simulation options starts a new one from its seed), and
 * its last snapshot with the last command the snapshot includes.
 */
export const simulatedServers = pgTable(
  "simulated_servers",
  {
    platformId: uuid("platform_id")
      .primaryKey()
      .references(() => tradePlatforms.id, { onDelete: "cascade" }),
    identity: text("identity").notNull(),
    nodeId: text("node_id").notNull(),
    epoch: bigint("epoch", { mode: "number" }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    snapshot: bytea("snapshot"),
    snapshotSeq: bigint("snapshot_seq", { mode: "number" }).notNull().default(0),
  },
  (t) => [index("simulated_servers_node_idx").on(t.nodeId)],
);

/** The calls a simulated server ran since its snapshot, in order (decision 0069): replayed on restore. */
export const simulatedServerCommands = pgTable(
  "simulated_server_commands",
  {
    platformId: uuid("platform_id")
      .notNull()
      .references(() => tradePlatforms.id, { onDelete: "cascade" }),
    seq: bigint("seq", { mode: "number" }).notNull(),
    op: text("op").notNull(),
    args: jsonb("args").$type<unknown[]>().notNull(),
    /** The clock's time the call ran at, in UTC milliseconds. */
    at: bigint("at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.platformId, t.seq] })],
);
