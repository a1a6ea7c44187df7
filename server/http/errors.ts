import type { FastifyError, FastifyInstance } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { ConnectorError } from "../connectors/errors.ts";
import { databaseErrorCode, isTransientConflict } from "../db/errors.ts";
import { DomainError, domainErrorOf, type DomainErrorKind } from "../errors.ts";
import { readableIssueMessage, readableIssues } from "../../core/readableIssues.ts";

/** Body of every API error: a message a person can read, and the status it came with. */
export interface ApiErrorBody {
  statusCode: number;
  error: string;
  message: string;
  issues?: { path: string; message: string }[];
  /** A machine-readable reason where the client acts on it (e.g. `two_factor_required`). */
  code?: string;
}

/**
 * An error the HTTP layer itself throws on purpose (guard, body parser); its message is shown to
 * the user as is. Domain code throws DomainError (server/errors.ts) instead.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    /** Machine-readable reason, sent as the body's `code` (the UI acts on it). */
    readonly code?: string,
  ) {
    super(message);
  }
}

const REASONS: Partial<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** The one map from a domain error's kind to its HTTP status. */
const STATUS_OF_KIND: Record<DomainErrorKind, number> = {
  invalid: 400,
  forbidden: 403,
  notFound: 404,
  conflict: 409,
  refused: 422,
  unavailable: 503,
  tooMany: 429,
};

/**
 * An error thrown on purpose (HttpError, DomainError, ConnectorError) as the status and message to
 * answer with; undefined for anything else.
 */
export function deliberateError(err: unknown): { statusCode: number; message: string; code?: string } | undefined {
  if (err instanceof HttpError) return { statusCode: err.statusCode, message: err.message, ...(err.code ? { code: err.code } : {}) };
  const domain = err instanceof ConnectorError ? domainErrorOf(err) : err;
  if (domain instanceof DomainError) return { statusCode: STATUS_OF_KIND[domain.kind], message: domain.message, ...(domain.code ? { code: domain.code } : {}) };
  return undefined;
}

/** One place turns errors into answers; 5xx never shows internals. */
export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(err)) {
      // `issues` keep the machine path (forms tie them to fields); `message` is for a person:
      // "Trade rate: must be at most 100,000", never "body.connection.tradeRate: Too big: …".
      const paths = err.validation.map((v) => v.instancePath.split("/").filter(Boolean));
      const issues = err.validation.map((v, i) => ({
        path: [err.validationContext ?? "body", ...paths[i]!].join("."),
        message: readableIssueMessage(v.message ?? "is invalid"),
      }));
      const message = readableIssues(err.validation.map((v, i) => ({ path: paths[i]!, message: v.message ?? "is invalid" })));
      return reply.status(400).send({ statusCode: 400, error: "Bad Request", message, issues } satisfies ApiErrorBody);
    }
    // Backstop for text PostgreSQL cannot store (a NUL in a query string): the caller's mistake, not ours.
    const dbCode = databaseErrorCode(err);
    if (dbCode === "22021" || dbCode === "22P05") {
      return reply
        .status(400)
        .send({ statusCode: 400, error: "Bad Request", message: "Text in the request may not contain the NUL character (\\u0000)." } satisfies ApiErrorBody);
    }
    // Another change to the same rows won a race the retries could not (transactionWithRetry): say so, not "something went wrong".
    if (isTransientConflict(err)) {
      return reply.status(503).send({
        statusCode: 503,
        error: "Service Unavailable",
        message: "Another change to the same data was being saved at that moment. Please try again.",
      } satisfies ApiErrorBody);
    }
    const deliberate = deliberateError(err);
    if (deliberate) {
      // Thrown on purpose (e.g. 503 "the identity provider does not answer"): its message is for the user.
      const status = deliberate.statusCode;
      if (status >= 500) request.log.warn({ status, message: deliberate.message }, "request refused");
      return reply.status(status).send({
        statusCode: status,
        error: REASONS[status] ?? "Error",
        message: deliberate.message,
        ...(deliberate.code ? { code: deliberate.code } : {}),
      } satisfies ApiErrorBody);
    }
    const status = err.statusCode ?? 500;
    if (status >= 500) {
      // A failed query's wrapper carries every bound parameter (ids, payloads): log the driver's words only.
      request.log.error(dbCode ? { dbError: { code: dbCode, message: (err.cause as Error).message } } : { err }, "request failed");
      return reply
        .status(status)
        .send({ statusCode: status, error: REASONS[status] ?? "Error", message: "Something went wrong on our side. Please try again." });
    }
    // Fastify's own 4xx (bad JSON, wrong content type, too large) have readable messages already.
    const message = err.code === "FST_ERR_CTP_INVALID_JSON_BODY" || err instanceof SyntaxError ? "The request body is not valid JSON." : err.message;
    return reply.status(status).send({ statusCode: status, error: REASONS[status] ?? "Error", message } satisfies ApiErrorBody);
  });

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send({
      statusCode: 404,
      error: "Not Found",
      message: `No such endpoint: ${request.method} ${request.url.split("?")[0]}`,
    } satisfies ApiErrorBody);
  });
}
