// @vitest-environment node
/**
 * The customers CSV reader and writer (server/modules/customers/csv.ts): the import reports errors
 * by the line a record starts on, so quoted fields with line breaks must count their lines.
 */
import { describe, expect, it } from "vitest";
import { csvRow, CsvSyntaxError, parseCsv } from "../../server/modules/customers/csv.ts";

describe("customers CSV", () => {
  it("reads quoted fields, doubled quotes, CRLF and LF, and names each record's first line", () => {
    const text = '\ufeffkind,name\r\nperson,"Anna ""A"" Berg"\r\ncompany,"Two\nLines, AB"\n\nperson,Last\n';
    expect(parseCsv(text)).toEqual([
      { line: 1, fields: ["kind", "name"] },
      { line: 2, fields: ["person", 'Anna "A" Berg'] },
      { line: 3, fields: ["company", "Two\nLines, AB"] },
      { line: 6, fields: ["person", "Last"] },
    ]);
    expect(parseCsv("a,,b")).toEqual([{ line: 1, fields: ["a", "", "b"] }]);
  });

  it("refuses a quote that never closes or text after a closing quote, naming the line", () => {
    expect(() => parseCsv('kind,name\nperson,"open\n')).toThrow(new CsvSyntaxError(2, "Line 2: a quoted field is never closed."));
    expect(() => parseCsv('kind,name\nperson,"A"B\n')).toThrow(/Line 2: text after a closing quote/);
  });

  it("writes what it reads back, with formula-like text guarded and numbers kept", () => {
    const row = ["=SUM(A1)", "-12.5", "a,b", 'say "hi"', null];
    expect(csvRow(row)).toBe(`'=SUM(A1),-12.5,"a,b","say ""hi""",\r\n`);
    expect(parseCsv(csvRow(row))[0]!.fields).toEqual(["'=SUM(A1)", "-12.5", "a,b", 'say "hi"', ""]);
  });
});
