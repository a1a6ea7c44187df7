import { relogin } from "~/auth";
import { trackActivity } from "~/ui/loadingBar";
import { ApiError } from "./ApiError";
import { toastAuthenticationExpired, toastFailure, toastTwoFactorRequired } from "./failureToasts";
import { apiHeaders } from "./headers";
import { readableBody } from "./readableBody";

export interface RequestOptions {
  signal?: AbortSignal;
  headers?: HeadersInit;
  /** Query-string parameters; undefined and null values are left out. */
  query?: Record<string, string | number | boolean | null | undefined>;
  /**
   * The caller shows the failure itself (a form's inline error) or retries quietly (preflight), so
   * no 'Error' toast. A 401 still warns and signs in again: that is never the caller's to handle.
   */
  silent?: boolean;
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * The one client for the product API (docs/requirements.md#r-calls, docs/requirements.md#r-errors). It resolves with the parsed JSON (or text,
 * or undefined for an empty answer) and rejects with an ApiError after showing the catalogue's toast (docs/requirements.md#r-errors).
 */
async function request<T>(method: Method, path: string, body: unknown, options: RequestOptions = {}): Promise<T> {
  const headers = await apiHeaders(options.headers);
  if (!headers.has("Accept")) headers.set("Accept", "application/json");
  const init: RequestInit = { method, headers, signal: options.signal, credentials: "same-origin" };
  if (body !== undefined) {
    headers.set("Content-Type", "application/json");
    init.body = JSON.stringify(body);
  }

  let response: Response;
  try {
    response = await trackActivity(() => fetch(withQuery(path, options.query), init));
  } catch (error) {
    // The caller cancelled (navigated away, query superseded): nothing went wrong.
    if (isAbort(error, options.signal)) throw error;
    if (!options.silent) toastFailure("");
    throw new ApiError(0, error instanceof Error ? error.message : "Network error");
  }

  const text = await response.text().catch(() => "");
  if (!response.ok) {
    const readable = readableBody(text, response.headers.get("Content-Type"));
    const error = new ApiError(response.status, readable || `HTTP ${response.status}`, text);
    if (response.status === 401) {
      toastAuthenticationExpired(readable);
      await relogin().catch((e: unknown) => console.error("Signing in again failed", e));
    } else if (response.status === 403 && error.code === "two_factor_required") {
      // Never the caller's to handle: the way out is enrolment and a new sign-in.
      toastTwoFactorRequired(readable);
    } else if (!options.silent) {
      toastFailure(readable);
    }
    throw error;
  }
  return parseBody<T>(text, response, options);
}

function parseBody<T>(text: string, response: Response, options: RequestOptions): T {
  if (!text) return undefined as T;
  if (!response.headers.get("Content-Type")?.includes("json")) return text as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    if (!options.silent) toastFailure("");
    throw new ApiError(response.status, "The answer could not be read", text);
  }
}

function withQuery(path: string, query: RequestOptions["query"]): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null) params.append(key, String(value));
  const qs = params.toString();
  return qs ? `${path}${path.includes("?") ? "&" : "?"}${qs}` : path;
}

function isAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || (error instanceof DOMException && error.name === "AbortError");
}

/** GET/POST/PUT/PATCH/DELETE with the payload as the JSON body (docs/requirements.md#r-calls). */
export const api = {
  get: <T>(path: string, options?: RequestOptions) => request<T>("GET", path, undefined, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>("POST", path, body, options),
  put: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>("PUT", path, body, options),
  patch: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>("PATCH", path, body, options),
  del: <T = void>(path: string, body?: unknown, options?: RequestOptions) => request<T>("DELETE", path, body, options),
};
