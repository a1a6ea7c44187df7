import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { refusal } from "../../../core/schemas/apiError.ts";
import {
  AUDIT_CSV_COLUMNS,
  AUDIT_MAX_RANGE_DAYS,
  AuditFiltersSchema,
  AuditPageSchema,
  AuditQuerySchema,
  JournalPageSchema,
  JournalQuerySchema,
  JournalTailQuerySchema,
  LogSettingsSchema,
  type AuditEvent,
} from "../../../core/schemas/logs.ts";
import { actorOf } from "../audit/record.ts";
import { csvCell } from "../../../core/csv.ts";
import { allAudit, getLogSettings, listAudit, sweepAudit } from "./repository.ts";
import { saveLogSettings } from "./service.ts";
import { journalTails, readJournal } from "./journal.ts";
import { Readable } from "node:stream";

const read = { permission: { module: "logs", value: "read" } } as const;
const settingsWrite = { permission: { module: "settings", value: "write" } } as const;
const tags = ["logs"];

/** How often the audit retention sweep runs (each run removes a bounded number of rows). */
const SWEEP_EVERY_MS = 3_600_000;

/** The audit log's 400: a malformed filter, or a range the log is not read over (core/schemas/logs.ts). */
const RANGE_REFUSAL = refusal(`Invalid filters: a malformed field, from after to, or a range longer than ${AUDIT_MAX_RANGE_DAYS} days`);

const jsonCell = (value: unknown) => (value === null || value === undefined ? "" : JSON.stringify(value));

function csvLine(event: AuditEvent): string {
  return AUDIT_CSV_COLUMNS.map(([key]) => csvCell(key === "before" || key === "after" ? jsonCell(event[key]) : event[key])).join(",") + "\r\n";
}

/**
 * /api/logs (docs/logs.md): the organization's audit log and its CSV export, each platform's
 * server journal with a live tail, and the audit retention setting (administrators: settings
 * write). Everything is scoped to the OrganizationId header's organization.
 */
export async function logRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;
  const tails = journalTails();
  app.addHook("preClose", async () => tails.closeAll());

  const log = app.log.child({ module: "logs" });
  const sweep = () => sweepAudit(db).catch((err: unknown) => log.warn({ err }, "audit retention sweep failed"));
  const sweeper = setInterval(() => void sweep(), SWEEP_EVERY_MS);
  sweeper.unref?.();
  app.addHook("onReady", async () => void sweep());
  app.addHook("onClose", async () => clearInterval(sweeper));

  api.get(
    "/logs/audit",
    {
      config: read,
      schema: {
        tags,
        summary: "The organization's audit log: filtered, sorted by time, paged",
        querystring: AuditQuerySchema,
        response: { 200: AuditPageSchema, 400: RANGE_REFUSAL },
      },
    },
    async (request) => listAudit(db, request.organization.id, request.query),
  );

  api.get(
    "/logs/audit.csv",
    {
      config: read,
      schema: {
        tags,
        summary: "Every audit record matching the filters as CSV, streamed; X-Total-Count gives the number of data lines",
        // Its 400 (the same filters) is the completion's (server/http/docs.ts): a response map here would type the stream as JSON.
        querystring: AuditFiltersSchema,
      },
    },
    async (request, reply) => {
      const { total, pages } = await allAudit(db, request.organization.id, request.query);
      async function* lines() {
        yield AUDIT_CSV_COLUMNS.map(([, title]) => csvCell(title)).join(",") + "\r\n";
        for await (const page of pages) yield page.map(csvLine).join("");
      }
      return reply
        .header("Content-Type", "text/csv; charset=utf-8")
        .header("Content-Disposition", `attachment; filename="audit-${new Date().toISOString().slice(0, 10)}.csv"`)
        .header("X-Total-Count", String(total))
        .header("Access-Control-Expose-Headers", "X-Total-Count, Content-Disposition")
        .send(Readable.from(lines()));
    },
  );

  api.get(
    "/logs/journal",
    {
      config: read,
      schema: {
        tags,
        summary: "A platform's server journal within a time window (the last hour by default), newest first",
        querystring: JournalQuerySchema,
        response: { 200: JournalPageSchema },
      },
    },
    async (request) => {
      const { platformId, from, to, ...rest } = request.query;
      const connector = await app.platforms.connectorFor(request.organization.id, platformId);
      const until = to ? Date.parse(to) : Date.now() + 60_000;
      return readJournal(connector, { ...rest, from: from ? Date.parse(from) : until - 3_600_000, to: until });
    },
  );

  api.get(
    "/logs/journal/live",
    {
      config: read,
      schema: {
        tags,
        summary: "A platform's new server journal entries as Server-Sent Events (event: entry, status)",
        querystring: JournalTailQuerySchema,
      },
    },
    async (request, reply) => {
      const { platformId, since, ...filters } = request.query;
      const organizationId = request.organization.id;
      // A platform of another organization answers 404 before the stream opens.
      await app.platforms.connectorFor(organizationId, platformId).catch((err: unknown) => {
        if ((err as { name?: string }).name === "NotFoundError") throw err;
      });
      tails.open(request, reply, {
        connect: () => app.platforms.connectorFor(organizationId, platformId),
        filters,
        since: since ? Date.parse(since) : Date.now() - 2_000,
      });
    },
  );

  api.get(
    "/logs/settings",
    { config: read, schema: { tags, summary: "How long the organization's audit records are kept", response: { 200: LogSettingsSchema } } },
    async (request) => getLogSettings(db, request.organization.id),
  );

  api.put(
    "/logs/settings",
    {
      config: settingsWrite,
      schema: { tags, summary: "Set how long audit records are kept (administrators)", body: LogSettingsSchema, response: { 200: LogSettingsSchema } },
    },
    async (request) => saveLogSettings(db, actorOf(request), request.organization.id, request.body),
  );
}
