/**
 * The organization's market holidays for the Quotes Monitor (docs/quotes-monitor.md#holidays):
 * server-local dates on which the symbols of a mask do not trade whatever their weekly sessions
 * say. On such a day the monitor shows the session as `holiday` and never calls the feed stale.
 * GET/PUT /api/quotesMonitor/holidays; the screen's editor uses the same schema.
 */
import { z } from "zod";

export const HOLIDAYS_MAX = 500;

const isRealDate = (d: string) => {
  const t = Date.parse(`${d}T00:00:00Z`);
  return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === d;
};

export const HolidaySchema = z
  .object({
    /** The server-local date, YYYY-MM-DD. */
    date: z
      .string({ error: "date must be text" })
      .regex(/^\d{4}-\d{2}-\d{2}$/, "date must be a date such as 2026-12-25")
      .refine(isRealDate, "date must be a real calendar date"),
    name: z.string({ error: "name must be text" }).trim().min(1, "Give the holiday a name").max(100, "A holiday's name has at most 100 characters"),
    /** The symbols it closes (the group mask syntax); `*` is every symbol. */
    symbolMask: z
      .string({ error: "symbolMask must be text" })
      .trim()
      .min(1, "symbolMask must not be empty: * is every symbol")
      .max(500, "symbolMask has at most 500 characters")
      .regex(/^[^\s]+$/, "symbolMask is a comma-separated list of names and wildcards without spaces, such as US30,GER40")
      .default("*"),
  })
  .strict();
export type Holiday = z.infer<typeof HolidaySchema>;

export const HolidaysSchema = z
  .object({
    holidays: z
      .array(HolidaySchema, { error: "holidays must be a list" })
      .max(HOLIDAYS_MAX, `At most ${HOLIDAYS_MAX} holidays`)
      .refine((list) => new Set(list.map((h) => `${h.date}|${h.symbolMask}`)).size === list.length, {
        error: "A date is listed once per symbol mask",
      }),
  })
  .strict();
export type Holidays = z.infer<typeof HolidaysSchema>;
