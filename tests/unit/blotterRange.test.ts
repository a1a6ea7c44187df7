/**
 * The blotter's history range, checked in the form before anything is asked (issue 24 §2): a
 * first day after the last, or a range longer than the API takes, is a field's message, and the
 * form's judgement is the API's own.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BlotterDealQuerySchema } from "@core/schemas/tradesBlotter";
import { dayText, EMPTY_FILTERS, historyQuery, rangeProblem } from "~/features/trades-blotter/blotterFilters";

const apiTakes = (from: string, to: string) => BlotterDealQuerySchema.safeParse(Object.fromEntries(historyQuery({ filters: EMPTY_FILTERS, from, to }))).success;

describe("the history range in the blotter's form", () => {
  it("names the field and says what is wrong, in a dealer's words", () => {
    expect(rangeProblem("2026-11-20", "2026-11-21")).toBeNull();
    expect(rangeProblem("2026-11-21", "2026-11-21")).toBeNull();
    expect(rangeProblem("2026-11-22", "2026-11-21")).toEqual({ field: "to", message: "The last day is before the first" });
    expect(rangeProblem("2020-01-01", "2026-11-21")).toEqual({ field: "to", message: expect.stringMatching(/^At most 366 days/) });
    expect(rangeProblem("", "2026-11-21")).toEqual({ field: "from", message: "Choose a day" });
  });

  it("accepts exactly the ranges the API takes", () => {
    const day = fc.date({ min: new Date("2024-01-01T12:00:00"), max: new Date("2027-12-31T12:00:00"), noInvalidDate: true }).map(dayText);
    fc.assert(
      fc.property(day, fc.integer({ min: -5, max: 400 }), (from, length) => {
        const end = new Date(`${from}T12:00:00`);
        end.setDate(end.getDate() + length);
        const to = dayText(end);
        expect(rangeProblem(from, to) === null).toBe(apiTakes(from, to));
      }),
      { numRuns: 300 },
    );
  });
});
