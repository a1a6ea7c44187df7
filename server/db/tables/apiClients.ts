import { index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns.ts";
import { organizations } from "./organizations.ts";

/**
 * API clients: machine access to one organization with the client-credentials grant of the
 * embedded identity provider (docs/api.md; decision 0050). `id` is the OAuth `client_id`; the
 * secret (32 random bytes) is shown once and only its SHA-256 is kept. `permissions` are module
 * permissions (core/roles.ts ModulePermissions), never administrator. Revoking deletes the row:
 * the provider no longer finds the client and the API guard refuses its tokens at once.
 */
export const apiClients = pgTable(
  "api_clients",
  {
    id: text("id").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** SHA-256 of the secret, hex. */
    secretHash: text("secret_hash").notNull(),
    permissions: jsonb("permissions").notNull(),
    createdBySub: text("created_by_sub").notNull(),
    createdByName: text("created_by_name"),
    createdAt: createdAt(),
    /** Written by the API guard at most once a minute per client. */
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
  },
  (t) => [index("api_clients_organization_idx").on(t.organizationId, t.createdAt)],
);
