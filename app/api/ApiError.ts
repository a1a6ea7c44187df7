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

  /** True for 4xx answers: the request itself was refused, so repeating it won't help. */
  get isClientError(): boolean {
    return this.status >= 400 && this.status < 500;
  }
}
