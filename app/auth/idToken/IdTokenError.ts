/** An ID token broke a SPEC §5 rule; `message` is the §8 text. */
export class IdTokenError extends Error {
  override readonly name = "IdTokenError";
}
