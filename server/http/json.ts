import type { FastifyInstance } from "fastify";
import sjson from "secure-json-parse";
import { HttpError } from "./errors.ts";

const NUL = "\u0000";

/**
 * The API's JSON body parser: prototype-poisoning refused (as Fastify's own), and no NUL
 * character anywhere — PostgreSQL cannot store it in text or jsonb, so it would otherwise
 * surface as a 500 deep inside a write. One check here covers every route.
 */
export function registerJsonParser(app: FastifyInstance) {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === "") return done(new HttpError(400, "The request body is empty; send JSON."), undefined);
    try {
      const value = sjson.parse(
        text,
        (key: string, v: unknown) => {
          if (key.includes(NUL) || (typeof v === "string" && v.includes(NUL))) {
            throw new HttpError(400, "Text in the request may not contain the NUL character (\\u0000).");
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
