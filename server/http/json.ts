import type { FastifyInstance } from "fastify";
import sjson from "secure-json-parse";
import { HttpError } from "./errors.ts";

const NUL = "\u0000";
/** A UTF-16 surrogate that is not half of a pair (`\ud800` alone): with the `u` flag a pair is one code point, not a surrogate. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The API's JSON body parser: prototype-poisoning refused (as Fastify's own), and no text
 * PostgreSQL cannot store — the NUL character, and a lone UTF-16 surrogate (valid JSON escapes,
 * but no character: jsonb refuses them with an internal error, text silently turns them into
 * U+FFFD). Either would otherwise surface as a 500 deep inside a write, or corrupt the value. One
 * check here, on every string and key, covers every route.
 */
export function registerJsonParser(app: FastifyInstance) {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === "") return done(new HttpError(400, "The request body is empty; send JSON."), undefined);
    try {
      const value: unknown = sjson.parse(
        text,
        (key: string, v: unknown) => {
          if (key.includes(NUL) || (typeof v === "string" && v.includes(NUL))) {
            throw new HttpError(400, "Text in the request may not contain the NUL character (\\u0000).");
          }
          if (LONE_SURROGATE.test(key) || (typeof v === "string" && LONE_SURROGATE.test(v))) {
            throw new HttpError(400, "Text in the request contains a broken character (an unpaired UTF-16 surrogate, such as \\ud800).");
          }
          return v;
        },
        { protoAction: "error", constructorAction: "error" },
      );
      done(null, value);
    } catch (err) {
      done(err instanceof HttpError ? err : new HttpError(400, "The request body is not valid JSON."), undefined);
    }
  });
}
