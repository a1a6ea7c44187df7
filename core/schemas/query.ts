import { z } from "zod";

/** Query strings send empty fields for cleared filters: those mean "no filter". */
export const blankToUndefined = (value: unknown) => (typeof value === "string" && value.trim() === "" ? undefined : value);

/** An optional query parameter; an empty one counts as absent. */
export const optionalQuery = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema.optional());
