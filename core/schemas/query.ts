import { z } from "zod";

/** Query strings send empty fields for cleared filters: those mean "no filter". */
export const blankToUndefined = (value: unknown) => (typeof value === "string" && value.trim() === "" ? undefined : value);

/** An optional query parameter; an empty one counts as absent. */
export const optionalQuery = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema.optional());

/** `offset` and `limit` of a paged list (`?offset=200&limit=100`): whole numbers with readable errors. */
export function pagingQuery(limitMax: number) {
  return {
    offset: z.preprocess(
      blankToUndefined,
      z.coerce
        .number({ error: "offset must be a whole number" })
        .int({ error: "offset must be a whole number" })
        .min(0, { error: "offset cannot be negative" })
        .max(10_000_000)
        .default(0),
    ),
    limit: z.preprocess(
      blankToUndefined,
      z.coerce
        .number({ error: "limit must be a whole number" })
        .int({ error: "limit must be a whole number" })
        .min(1, { error: `limit must be from 1 to ${limitMax}` })
        .max(limitMax, { error: `limit must be from 1 to ${limitMax}` })
        .default(100),
    ),
  };
}
