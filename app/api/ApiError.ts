/** A failed API call: the HTTP status (0 when the network failed) and the readable message shown. */
export class ApiError extends Error {
  readonly status: number;
  /** The response body as text ('' when none). */
  readonly body: string;

  constructor(status: number, message: string, body = "") {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.body = body;
  }

  /** The body's machine-readable `code` (e.g. `two_factor_required`), when the API gave one. */
  get code(): string | undefined {
    try {
      const parsed: unknown = JSON.parse(this.body);
      const code = parsed && typeof parsed === "object" ? (parsed as { code?: unknown }).code : undefined;
      return typeof code === "string" ? code : undefined;
    } catch {
      return undefined;
    }
  }

  /** True for 4xx answers: the request itself was refused, so repeating it won't help. */
  get isClientError(): boolean {
    return this.status >= 400 && this.status < 500;
  }
}
