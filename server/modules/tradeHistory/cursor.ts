/**
 * Keyset cursors: the sort key of the last row of a page, opaque to clients (base64url JSON). A
 * cursor that does not decode is a bad request, never a 500.
 */
import { InvalidRequestError } from "../../errors.ts";

const NOT_OURS = "cursor is not one this API gave; start again from the first page";

export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

/** Decodes a cursor whose elements have the given types ("n": a safe integer, "s": a string). */
export function decodeCursor<T extends (string | number)[]>(cursor: string, shape: readonly ("n" | "s")[]): T {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw new InvalidRequestError(NOT_OURS);
  }
  const ok =
    Array.isArray(value) &&
    value.length === shape.length &&
    shape.every((type, i) => (type === "n" ? Number.isSafeInteger(value[i]) : typeof value[i] === "string" && value[i].length <= 100));
  if (!ok) throw new InvalidRequestError(NOT_OURS);
  return value as T;
}
