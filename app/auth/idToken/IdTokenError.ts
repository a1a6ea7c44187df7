/** An ID token broke a docs/requirements.md#r-validation rule; `message` is the docs/requirements.md#r-errors text. */
export class IdTokenError extends Error {
  override readonly name = "IdTokenError";
}
