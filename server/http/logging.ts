/**
 * What the server's log may hold (docs/security.md "Logging"): request paths, never query values
 * beyond a few harmless ones — an ID token travels in `/oidc/session/end?id_token_hint=…`, an
 * authorization code and state in `/auth-callback?…`, names and e-mails in account filters — and
 * errors without the parameters of a failed query or a database's `detail` (values of a row).
 */
import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from "fastify";
import pino from "pino";
import type { Config } from "../config.ts";

/** Query parameters whose values say nothing about a person and hold no secret. */
export const LOGGED_QUERY_PARAMETERS: ReadonlySet<string> = new Set([
  "sort",
  "dir",
  "limit",
  "offset",
  "platformId",
  "client_id",
  "response_type",
  "scope",
  "prompt",
  "error",
]);

/** What takes the place of a value left out (pino's own word for redacted paths). */
export const REDACTED = "[Redacted]";

/**
 * The URL as it may be logged: the path, and for each query parameter its name with its value
 * only when the parameter is on the allow-list. Parameters stay in their order; nothing is decoded.
 */
export function loggedUrl(url: string): string {
  const q = url.indexOf("?");
  if (q === -1) return url;
  const path = url.slice(0, q);
  const query = url.slice(q + 1);
  if (query === "") return path;
  const parts = query.split("&").map((pair) => {
    const eq = pair.indexOf("=");
    const name = eq === -1 ? pair : pair.slice(0, eq);
    let decoded: string;
    try {
      decoded = decodeURIComponent(name.replaceAll("+", " "));
    } catch {
      decoded = name;
    }
    if (eq !== -1 && LOGGED_QUERY_PARAMETERS.has(decoded)) return pair;
    // A parameter name is chosen by the client too: keep it only when it looks like a name.
    const shown = /^[A-Za-z0-9_.[\]-]{1,40}$/.test(name) ? name : REDACTED;
    return eq === -1 ? shown : `${shown}=${REDACTED}`;
  });
  return `${path}?${parts.join("&")}`;
}

interface RawRequestLike {
  method?: string;
  url?: string;
  host?: string;
  hostname?: string;
  ip?: string;
  socket?: { remoteAddress?: string; remotePort?: number };
}

/** Fastify's request serializer, with the URL cut down by `loggedUrl`. */
export function serializeRequest(request: RawRequestLike) {
  return {
    method: request.method,
    url: loggedUrl(request.url ?? ""),
    host: request.host ?? request.hostname,
    remoteAddress: request.ip ?? request.socket?.remoteAddress,
    remotePort: request.socket?.remotePort,
  };
}

/** Properties of an error that describe it without carrying the data it was about. */
const SAFE_ERROR_FIELDS = ["code", "statusCode", "status", "error", "error_description", "severity", "constraint", "table", "column", "routine"];
const MAX_CAUSE_DEPTH = 4;

/**
 * A failed query's message is `Failed query: <sql>\nparams: <values>` (Drizzle): the SQL is ours,
 * the values are the caller's (tokens, sessions, names), so they go.
 */
export function scrubErrorText(text: string): string {
  return text.replace(/\nparams: [^\n]*/g, `\nparams: ${REDACTED}`);
}

export interface SerializedError {
  type: string;
  message: string;
  stack: string;
  cause?: SerializedError;
  [field: string]: unknown;
}

/**
 * The `err` serializer of every log line: type, message and stack (scrubbed), the safe fields
 * above and the chain of causes. Everything else an error carries — a query's `params`, a
 * database error's `detail` or `where`, an HTTP client's request — is left out.
 */
export function serializeError(err: unknown, depth = 0): SerializedError {
  if (!(err instanceof Error)) return { type: typeof err, message: scrubErrorText(String(err)), stack: "" };
  const out: SerializedError = {
    type: err.constructor?.name || err.name,
    message: scrubErrorText(err.message),
    stack: scrubErrorText(err.stack ?? ""),
  };
  for (const field of SAFE_ERROR_FIELDS) {
    const value = (err as unknown as Record<string, unknown>)[field];
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") out[field] = value;
  }
  if (err.cause !== undefined && depth < MAX_CAUSE_DEPTH) out.cause = serializeError(err.cause, depth + 1);
  return out;
}

/** Manager passwords and API keys, wherever a request body or a logged object may carry them (three levels deep). */
const SECRET_LOG_PATHS = ["password", "apiKey"].flatMap((key) => [key, `*.${key}`, `*.*.${key}`, `*.*.*.${key}`]);

export interface LogOptions {
  /** Where log lines go instead of stdout (tests read them back; the benchmark writes a file). */
  logStream?: { write(line: string): void };
}

/**
 * The server's logger: JSON lines written asynchronously (a buffer flushed by the event loop, and
 * on exit), so a busy API does not wait on the terminal or the log shipper; readable lines while
 * developing (pino-pretty, in its own worker thread); and nothing a log must not keep.
 */
export function loggerOptions(config: Config, opts: LogOptions): FastifyServerOptions["logger"] {
  const destination = opts.logStream ?? (config.env === "development" ? undefined : pino.destination({ dest: 1, sync: false }));
  return {
    level: config.logLevel,
    // Tokens, cookies and platform secrets never reach the log.
    redact: ["req.headers.authorization", "req.headers.cookie", 'res.headers["set-cookie"]', ...SECRET_LOG_PATHS],
    serializers: {
      req: serializeRequest,
      err: (err: unknown) => serializeError(err),
    },
    ...(destination ? { stream: destination } : { transport: { target: "pino-pretty", options: { ignore: "pid,hostname" } } }),
  };
}

/**
 * One line per request, when it is answered: method, URL (as `loggedUrl` allows), status, time.
 * Fastify's default is a line on arrival and one on completion: half the lines for the same facts.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override routeNotFound(request: FastifyRequest): void {
    request.log.info(`Route ${request.raw.method}:${loggedUrl(request.raw.url ?? "")} not found`);
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, "request errored");
    } else {
      logCompleted(request, reply);
    }
  }
}

/**
 * The server's logger without the redaction pass, for the completed-request line only: that
 * line's fields are fixed — the request as `serializeRequest` writes it (no headers, the URL cut
 * down by `loggedUrl`), the status and the time — so no secret path can be in it, while the pass
 * walks every line's object for `*.password` and the like: about 8 % of a guarded request's
 * server time in a profile (issue 30). Errors still go through the redacting logger.
 */
const unredacted = new WeakMap<object, FastifyRequest["log"]>();
function completedLineLogger(request: FastifyRequest): FastifyRequest["log"] {
  const root = request.server.log;
  let log = unredacted.get(root);
  if (!log) unredacted.set(root, (log = root.child({}, { redact: [] })));
  return log;
}

/** The line of RequestLogController; a route that hijacks its reply (the identity provider's) logs it itself. */
export function logCompleted(request: FastifyRequest, reply: FastifyReply) {
  // The request's own logger decides whether the line is written (its level), and binds its id.
  if (!(request.log as unknown as pino.Logger).isLevelEnabled("info")) return;
  completedLineLogger(request).info(
    { reqId: request.id, req: request, res: { statusCode: reply.raw.statusCode }, responseTime: reply.elapsedTime },
    "request completed",
  );
}
