// @vitest-environment node
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fieldLabel, readableIssue, readableIssues } from "@core/readableIssues";

/** Zod's own wording, as the API's validation hands it over, turned into words a person reads. */
describe("readableIssues", () => {
  const schema = z
    .object({
      tradeRate: z.number().max(100_000),
      name: z.string().min(2),
      side: z.enum(["buy", "sell"]),
      login: z.string(),
      smtpUrl: z.url(),
      when: z.iso.datetime(),
      items: z.array(z.object({ maxVolume: z.number().int() })),
    })
    .strict();
  const issues = (value: unknown) => {
    const result = schema.safeParse(value);
    if (result.success) throw new Error("expected issues");
    return readableIssues(
      result.error.issues.map((i) => ({ path: ["body", ...i.path.map((p) => (typeof p === "symbol" ? String(p) : p))], message: i.message })),
    );
  };

  it("names fields in words and says what is wrong without zod's wording", () => {
    const text = issues({ tradeRate: 1e6, name: "x", side: "hold", smtpUrl: "no", when: "today", items: [{ maxVolume: 1.5 }], extra: 1 });
    expect(text.split("; ")).toEqual([
      "Trade rate: must be at most 100,000",
      "Name: use at least 2 characters",
      'Side: must be one of "buy", "sell"',
      "Login: is required",
      "SMTP URL: must be a web address (https://…)",
      "When: must be a date and time (ISO 8601, e.g. 2026-11-27T07:13:00Z)",
      "Max volume (item 1): must be a whole number",
      'Unknown field "extra"',
    ]);
  });

  it("never shows the request part", () => {
    expect(fieldLabel(["querystring", "from"])).toBe("From");
    expect(fieldLabel(["body", "settings", "url"])).toBe("URL");
    expect(fieldLabel(["body"])).toBe("");
  });

  it("says a sort direction in words, not 'Dir must be asc or desc'", () => {
    expect(readableIssue(["querystring", "dir"], "dir must be asc (ascending) or desc (descending)")).toBe(
      "Sort direction must be asc (ascending) or desc (descending)",
    );
    expect(fieldLabel(["querystring", "dir"])).toBe("Sort direction");
  });
});
