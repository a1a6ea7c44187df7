/**
 * The REST half of the Match-Trader Broker API client: HTTPS only (trusting the configured CA or
 * the system's, never "any certificate"), the token header, JSON bodies, the
 * client-side rate limit (a queue), 429 answered by waiting and trying again, and every failure
 * as either a LinkError (no answer) or a NativeError carrying an MtError the codec understands.
 */
import type { LookupFunction } from "node:net";
import { request as httpsRequest, Agent as HttpsAgent } from "node:https";
import { sleep, type Clock } from "../clock.ts";
import type { MtError } from "../matchTrader/native.ts";
import { isTargetRefused, targetRefused } from "../target.ts";
import { httpsUrl, isCertificateFailure, untrustedCertificate } from "../transport/client.ts";
import { LinkError, NativeError } from "../wire/wire.ts";
import type { Priority, RateLimiter } from "./rateLimiter.ts";

export interface RestCounters {
  /** Requests on the wire, not yet answered. */
  inFlight: number;
}

export interface RestClientOptions {
  baseUrl: string;
  token: string;
  clock: Clock;
  limiter: RateLimiter;
  counters: RestCounters;
  /** Trusted CA certificates (PEM) for a server with a private CA; the system's CAs when absent. */
  ca?: string;
  /** How names are resolved: through the connection-target check (server/connectors/target.ts). */
  lookup?: LookupFunction;
  /** How many times a 429 is waited out before failing; 3 by default. */
  retriesOn429?: number;
}

export interface Answer<T> {
  status: number;
  body: T;
}

const RETRIES_ON_429 = 3;

/** HTTP failures in a dealer's words; 422 keeps the server's own code. */
export function errorFromHttp(status: number, body: unknown): MtError {
  const fields = (body && typeof body === "object" ? body : {}) as { title?: unknown; detail?: unknown; errorCode?: unknown };
  const detail = typeof fields.detail === "string" && fields.detail ? fields.detail : `HTTP ${status}`;
  const title = typeof fields.title === "string" ? fields.title : "";
  if (status === 401)
    return {
      status,
      errorCode: "UNAUTHORIZED",
      message: "The trading server refused the API key: it is wrong, expired or revoked. Check it in the broker's Match-Trader admin.",
    };
  if (status === 403)
    return {
      status,
      errorCode: "UNAUTHORIZED",
      message: "The trading server refused the API key for this request: it lacks the right, or Toolbox's IP address is not on the key's whitelist.",
    };
  if (status === 429)
    return { status, errorCode: "TOO_MANY_REQUESTS", message: "The trading server is limiting Toolbox's requests (500 a minute). Try again in a minute." };
  if (status === 404) return { status, errorCode: "NOT_FOUND", message: detail };
  if (status === 400) return { status, errorCode: "INVALID_REQUEST", message: detail };
  if (status === 409 || status === 422) return { status, errorCode: title || "REJECTED", message: detail };
  if (status === 502 || status === 503 || status === 504)
    return { status, errorCode: "SERVICE_UNAVAILABLE", message: "The trading server is unavailable right now. Toolbox will try again." };
  return { status, errorCode: "REJECTED", message: `The trading server failed to answer (HTTP ${status}). Try again later.` };
}

/** A request that got no answer: a refused target or an untrusted certificate say so, the rest is a lost link. */
export function networkFailure(error: NodeJS.ErrnoException): Error {
  if (isTargetRefused(error)) return targetRefused();
  if (isCertificateFailure(error.code ?? "")) return untrustedCertificate();
  return new LinkError(error.code === "ECONNREFUSED" || error.code === "ENOTFOUND" || error.code === "EHOSTUNREACH" ? "unreachable" : "closed");
}

/** Bulk history reads: a restart's backfill reads them for every account. */
const HISTORY = new Set([
  "/v1/trading-accounts/trading-data/closed-positions",
  "/v1/trading-accounts/trading-data/order-history",
  "/v1/trading-accounts/trading-data/ledgers",
  "/v1/journal",
]);

/** The rate limiter's lane of a request (./rateLimiter.ts): changes first, bulk history last. */
export function priorityOf(method: string, path: string): Priority {
  if (method !== "GET") return "high";
  return HISTORY.has(path) ? "low" : "normal";
}

export class RestClient {
  private readonly base: URL;
  private readonly agent: HttpsAgent;

  constructor(private readonly options: RestClientOptions) {
    this.base = httpsUrl(options.baseUrl, HTTPS_ONLY);
    this.agent = new HttpsAgent({ keepAlive: true, ca: options.ca, rejectUnauthorized: true, ...(options.lookup ? { lookup: options.lookup } : {}) });
  }

  async call<T>(method: string, path: string, input: { query?: Record<string, string | null | undefined>; body?: unknown } = {}): Promise<Answer<T>> {
    const priority = priorityOf(method, path);
    for (let attempt = 0; ; attempt++) {
      await this.options.limiter.acquire(priority);
      const answer = await this.counted(() => this.once(method, path, input));
      if (answer.status === 429 && attempt < (this.options.retriesOn429 ?? RETRIES_ON_429)) {
        // Not applied: wait as long as the server asks, then send it again.
        const seconds = Number(answer.retryAfter ?? "1");
        const wait = (Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000;
        this.options.limiter.backOff(wait);
        await sleep(this.options.clock, wait);
        continue;
      }
      if (answer.status >= 200 && answer.status < 300) return { status: answer.status, body: answer.body as T };
      throw new NativeError(errorFromHttp(answer.status, answer.body));
    }
  }

  /** Counts a request on the wire (not one waiting for its turn or for a Retry-After). */
  private async counted<T>(send: () => Promise<T>): Promise<T> {
    this.options.counters.inFlight++;
    try {
      return await send();
    } finally {
      this.options.counters.inFlight--;
    }
  }

  private once(method: string, path: string, input: { query?: Record<string, string | null | undefined>; body?: unknown }) {
    const url = new URL(path.replace(/^\//, ""), this.base.href.endsWith("/") ? this.base : new URL(`${this.base.href}/`));
    for (const [key, value] of Object.entries(input.query ?? {})) if (value !== null && value !== undefined) url.searchParams.set(key, value);
    const payload = input.body === undefined ? undefined : JSON.stringify(input.body);
    return new Promise<{ status: number; body: unknown; retryAfter: string | undefined }>((resolve, reject) => {
      const req = httpsRequest(
        url,
        {
          method,
          agent: this.agent,
          headers: {
            authorization: `Bearer ${this.options.token}`,
            accept: "application/json",
            ...(payload === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          let data = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (data += chunk));
          res.on("error", () => reject(new LinkError("closed")));
          res.on("end", () => {
            let body: unknown = undefined;
            try {
              body = data ? (JSON.parse(data) as unknown) : undefined;
            } catch {
              body = undefined;
            }
            const retryAfter: string | undefined = res.headers["retry-after"];
            resolve({ status: res.statusCode ?? 0, body, retryAfter });
          });
        },
      );
      req.on("error", (error: NodeJS.ErrnoException) => reject(networkFailure(error)));
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The API key travels in a header: never over plain HTTP. */
export const HTTPS_ONLY = "The Match-Trader Broker API is reached over HTTPS only: the API URL must start with https://.";
