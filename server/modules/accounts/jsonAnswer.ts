/**
 * An answer whose JSON is already text, written by the database (issue 30): a list page's rows
 * come from PostgreSQL as one JSON text each (`row_to_json` over columns aliased in the answer's
 * shape), so the process neither reads every field of every row nor writes them out again.
 *
 * The HTTP layer's serializer (server/http/serializer.ts) sends the text as it is; in tests it
 * parses it and checks it against the route's response schema (no field more or less, every
 * value of its type), as it checks every other answer. The two meet on the symbol's global name,
 * since modules never import http/. The type is the route's answer, which the text must be.
 */
const JSON_TEXT = Symbol.for("toolbox.jsonText");

export function jsonAnswer<T>(text: string): T {
  return { [JSON_TEXT]: text } as unknown as T;
}

/** A JSON string literal for `text` (a name read from a cache, written into an answer's text). */
export const jsonString = (text: string): string => JSON.stringify(text);
