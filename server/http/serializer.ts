import fastJson from "fast-json-stringify";
import type { FastifySerializerCompiler } from "fastify/types/schema.js";
import { serializerCompiler as zodSerializerCompiler } from "fastify-type-provider-zod";
import { z } from "zod";
import { isDeepStrictEqual } from "node:util";

type Serialize = (data: unknown) => string;

/**
 * An answer whose JSON a module already has as text (a list page written by the database, see
 * server/modules/accounts/jsonAnswer.ts): an object carrying the text under this symbol. The
 * modules never import http/, so they meet on the symbol's global name.
 */
const JSON_TEXT = Symbol.for("toolbox.jsonText");
const jsonTextOf = (data: unknown): string | undefined =>
  data !== null && typeof data === "object" ? ((data as { [JSON_TEXT]?: string })[JSON_TEXT] ?? undefined) : undefined;

/**
 * How answers are written (issue 30). Re-validating our own answers with zod and then
 * `JSON.stringify` cost about a third of a list request; instead each response schema is compiled
 * once, at start, into a serializer (fast-json-stringify) from its JSON schema — the same JSON
 * schema the OpenAPI document shows —, which writes exactly the documented fields: an undocumented
 * one never leaves, a missing required one is an error.
 *
 * In tests (NODE_ENV=test) every answer is also checked the old way: zod validates it against
 * the route's schema, and the compiled serializer must write the same JSON as zod's answer would
 * be, or the request fails with 500 and the test with it. So every answer of every operation
 * the API tests make matches its documented schema, and the compiled serializer neither lets an
 * undocumented field through nor drops a documented one.
 *
 * A schema JSON Schema cannot say (a transform in an output) keeps zod's serializer.
 */
export function responseSerializerCompiler(checkWithZod: boolean): FastifySerializerCompiler<unknown> {
  return (route) => {
    const zodSerialize = zodSerializerCompiler(route as Parameters<typeof zodSerializerCompiler>[0]) as Serialize;
    const compiled = compile(route.schema);
    const where = `${route.method} ${route.url} (${route.httpStatus})`;
    if (!checkWithZod) {
      const serialize = compiled ?? zodSerialize;
      return (data) => jsonTextOf(data) ?? serialize(data);
    }
    return (data) => {
      // Text already written (by the database): in tests it must be exactly the schema's answer,
      // no field more or less, as the compiled serializer's must.
      const text = jsonTextOf(data);
      if (text !== undefined) {
        const parsed: unknown = JSON.parse(text);
        const checked = zodSerialize(parsed);
        if (!isDeepStrictEqual(parsed, JSON.parse(checked))) {
          throw new Error(`The JSON text answered by ${where} is ${text.slice(0, 500)} where the schema's answer is ${checked.slice(0, 500)}`);
        }
        return text;
      }
      const checked = zodSerialize(data);
      if (!compiled) return checked;
      const fast = compiled(data);
      if (!isDeepStrictEqual(JSON.parse(fast), JSON.parse(checked))) {
        throw new Error(`The compiled serializer of ${where} wrote ${fast.slice(0, 500)} where the schema's answer is ${checked.slice(0, 500)}`);
      }
      return fast;
    };
  };
}

function compile(schema: unknown): Serialize | undefined {
  const zodSchema = schema instanceof z.ZodType ? schema : undefined;
  if (!zodSchema) return undefined;
  let jsonSchema: object;
  try {
    jsonSchema = z.toJSONSchema(zodSchema, { io: "output", target: "draft-7", unrepresentable: "throw", cycles: "ref", reused: "inline" });
  } catch {
    return undefined;
  }
  try {
    return fastJson(withoutNullBranches(jsonSchema) as Parameters<typeof fastJson>[0]);
  } catch {
    return undefined;
  }
}

/**
 * `X | null` as `type: [X, "null"]` rather than `anyOf`: fast-json-stringify picks an `anyOf`
 * branch by validating the value against each at run time (with ajv and its formats), per field
 * of every row; a type list it writes without validating.
 */
function withoutNullBranches(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutNullBranches);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = key === "enum" || key === "const" ? value : withoutNullBranches(value);
  const anyOf = out.anyOf as Record<string, unknown>[] | undefined;
  if (Array.isArray(anyOf) && anyOf.length === 2) {
    const other = anyOf.find((branch) => branch.type !== "null");
    const simple = other && typeof other.type === "string" && other.type !== "object" && other.type !== "array" && !other.anyOf && !other.enum;
    if (simple && anyOf.some((branch) => branch.type === "null" && Object.keys(branch).length === 1)) {
      const { anyOf: _dropped, ...rest } = out;
      return { ...rest, ...other, type: [other.type, "null"] };
    }
  }
  return out;
}
