import type { FastifyInstance } from "fastify";
import { refusal } from "../../../core/schemas/apiError.ts";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  AccountOwnerSchema,
  AccountOwnersQuerySchema,
  AddNoteSchema,
  CUSTOMER_CSV_COLUMNS,
  CreateCustomerSchema,
  CustomerDetailSchema,
  CustomerListSchema,
  CustomerOwnerSchema,
  CustomerSchema,
  ImportCustomersSchema,
  ImportReportSchema,
  LinkAccountSchema,
  LinkedAccountSchema,
  ListCustomersQuerySchema,
  NoteSchema,
  PatchCustomerSchema,
} from "../../../core/schemas/customers.ts";
import { actorOf } from "../audit/record.ts";
import { listMembers } from "../members/repository.ts";
import { csvStream } from "./csv.ts";
import { exportPages } from "./exportRows.ts";
import { importCustomers } from "./import.ts";
import { getCustomer } from "./recentDeals.ts";
import { linkAccount, unlinkAccount } from "./links.ts";
import { ownersOfAccounts } from "./linksRepository.ts";
import { listCustomers } from "./listing.ts";
import { addNote, listNotes } from "./notes.ts";
import { createCustomer, deleteCustomer, updateCustomer } from "./writes.ts";

const tags = ["customers"];
const read = { permission: { module: "customers", value: "read" } } as const;
const write = { permission: { module: "customers", value: "write" } } as const;
const IdParams = z.object({ id: z.guid({ error: "The customer id must be a UUID" }) });
const LinkParams = IdParams.extend({ platformId: z.guid({ error: "platformId must be a platform id (a UUID)" }), login: z.string().min(1).max(64) });
/** An import carries the whole file (100,000 rows is about 10 MB). */
const IMPORT_BODY_LIMIT = 32 * 1024 * 1024;

/** The broker's customers and their accounts (docs/customers.md). */
export async function customerRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;

  api.get(
    "/customers",
    {
      config: read,
      schema: { tags, summary: "Customers: searched, filtered, sorted, paged", querystring: ListCustomersQuerySchema, response: { 200: CustomerListSchema } },
    },
    async (request) => listCustomers(db, request.organization.id, request.query),
  );

  // The owner picker and filter need the members' names, also for people who may not read the
  // members screen (Module.members): sub, name and e-mail only, no roles.
  api.get(
    "/customers/owners",
    {
      config: read,
      schema: {
        tags,
        summary: "The members who can own a customer (sub, name, e-mail), by name",
        response: { 200: z.array(CustomerOwnerSchema) },
      },
    },
    async (request) =>
      (await listMembers(db, request.organization.id))
        .map((m) => ({ sub: m.sub, name: m.name, email: m.email }))
        .sort((a, b) => (a.name ?? a.email ?? a.sub).localeCompare(b.name ?? b.email ?? b.sub)),
  );

  // The "Link" picker offers only accounts no customer has: it asks about the accounts it found.
  api.get(
    "/customers/accountOwners",
    {
      config: read,
      schema: {
        tags,
        summary: "Which of these accounts a customer already has (an account belongs to one customer), and which customer",
        querystring: AccountOwnersQuerySchema,
        response: { 200: z.array(AccountOwnerSchema) },
      },
    },
    async (request) => ownersOfAccounts(db, request.organization.id, request.query.accounts),
  );

  api.get(
    "/customers.csv",
    {
      config: read,
      schema: {
        tags,
        summary: "Every customer of the view (same filters and sort as the list, no paging) as CSV, streamed",
        querystring: ListCustomersQuerySchema,
        produces: ["text/csv"],
      },
    },
    async (request, reply) => {
      const day = new Date().toISOString().slice(0, 10);
      return reply
        .header("Content-Type", "text/csv; charset=utf-8")
        .header("Content-Disposition", `attachment; filename="customers-${day}.csv"`)
        .send(csvStream(CUSTOMER_CSV_COLUMNS, exportPages(db, request.organization.id, request.query)));
    },
  );

  api.post(
    "/customers",
    {
      config: write,
      schema: {
        tags,
        summary: "Create a customer",
        body: CreateCustomerSchema,
        response: { 201: CustomerSchema, 422: refusal("Past a quota of this Toolbox (the message names it and its variable)") },
      },
    },
    async (request, reply) => reply.status(201).send(await createCustomer(db, actorOf(request), request.body, app.ctx.config.quotas)),
  );

  api.post(
    "/customers/import",
    {
      config: write,
      bodyLimit: IMPORT_BODY_LIMIT,
      schema: {
        tags,
        summary:
          "Import customers from CSV: every row validated (line and field), all or nothing (staged, then published at once); a row whose e-mail an existing customer has skips or updates it; one import at a time per organization (409)",
        description: `Columns by header name: ${CUSTOMER_CSV_COLUMNS.join(", ")} (kind and name required; tags separated by ";"; owner a member's e-mail). A row is matched to an existing customer by e-mail; \`existing\` says whether it is skipped or updated.`,
        body: ImportCustomersSchema,
        response: {
          200: ImportReportSchema,
          422: refusal("Past a quota of this Toolbox (the message names it and its variable): nothing was imported"),
          409: refusal("Another import runs in the organization, or this import's claim was taken over: try again when it ends"),
        },
      },
    },
    async (request) => importCustomers(db, actorOf(request), app.ctx.config.quotas, request.body),
  );

  api.get(
    "/customers/:id",
    {
      config: read,
      schema: {
        tags,
        summary: "One customer with its linked accounts and their balance and equity",
        params: IdParams,
        response: { 200: CustomerDetailSchema },
      },
    },
    async (request) => getCustomer(db, request.organization.id, request.params.id),
  );

  api.patch(
    "/customers/:id",
    {
      config: write,
      schema: {
        tags,
        summary: "Change a customer; `version` must be the one read (409 when someone changed it meanwhile)",
        params: IdParams,
        body: PatchCustomerSchema,
        response: { 200: CustomerSchema, 409: refusal("Someone else changed the customer since it was read (a stale `version`): read it again") },
      },
    },
    async (request) => updateCustomer(db, actorOf(request), request.params.id, request.body),
  );

  api.delete(
    "/customers/:id",
    {
      config: write,
      schema: { tags, summary: "Delete a customer; its accounts are unlinked, never deleted", params: IdParams, response: { 204: z.null() } },
    },
    async (request, reply) => {
      await deleteCustomer(db, actorOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );

  api.post(
    "/customers/:id/accounts",
    {
      config: write,
      schema: {
        tags,
        summary: "Link a trading account to the customer (409 when another customer has it)",
        params: IdParams,
        body: LinkAccountSchema,
        response: { 201: z.array(LinkedAccountSchema), 409: refusal("The account is already linked to another customer: unlink it there first") },
      },
    },
    async (request, reply) => reply.status(201).send(await linkAccount(db, actorOf(request), request.params.id, request.body)),
  );

  api.delete(
    "/customers/:id/accounts/:platformId/:login",
    { config: write, schema: { tags, summary: "Unlink a trading account from the customer", params: LinkParams, response: { 204: z.null() } } },
    async (request, reply) => {
      const { id, ...account } = request.params;
      await unlinkAccount(db, actorOf(request), id, account);
      return reply.status(204).send(null);
    },
  );

  api.get(
    "/customers/:id/notes",
    { config: read, schema: { tags, summary: "The customer's notes, newest first", params: IdParams, response: { 200: z.array(NoteSchema) } } },
    async (request) => listNotes(db, request.organization.id, request.params.id),
  );

  api.post(
    "/customers/:id/notes",
    { config: write, schema: { tags, summary: "Add a note to the customer's timeline", params: IdParams, body: AddNoteSchema, response: { 201: NoteSchema } } },
    async (request, reply) => reply.status(201).send(await addNote(db, actorOf(request), request.params.id, request.body.text)),
  );
}
