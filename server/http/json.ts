import type { FastifyInstance } from "fastify";
import sjson from "secure-json-parse";
import { HttpError } from "./errors.ts";

const NUL = "\u0000";
const NUL_MESSAGE = "Text in the request may not contain the NUL character (\\u0000).";
/** `%00` anywhere in a URL: in a path parameter or a query string field it would decode to a NUL. */
const ENCODED_NUL = /%00/i;
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
            throw new HttpError(400, NUL_MESSAGE);
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

/**
 * The same rule for the URL of an API request: a NUL in a path parameter or a query string field
 * is refused before any route sees it, whether the route's SQL would have failed on it (then a
 * backstop in errors.ts answered) or silently matched nothing (a group mask compared in memory).
 */
export function refuseNulInApiUrls(app: FastifyInstance) {
  app.addHook("onRequest", async (request) => {
    if (request.url.startsWith("/api/") && ENCODED_NUL.test(request.url)) throw new HttpError(400, NUL_MESSAGE);
  });
}
