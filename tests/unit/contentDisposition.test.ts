// @vitest-environment node
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { DEFAULT_DOWNLOAD_NAME, fileNameFromContentDisposition as name } from "~/api/contentDisposition";

describe("download file name from Content-Disposition (docs/requirements.md#r-calls)", () => {
  it("reads a quoted filename", () => {
    expect(name('attachment; filename="trades 2024-05.csv"')).toBe("trades 2024-05.csv");
  });

  it("reads a bare token filename", () => {
    expect(name("attachment; filename=report.pdf")).toBe("report.pdf");
  });

  it("prefers filename* (RFC 5987, UTF-8) over filename, in either order", () => {
    expect(name("attachment; filename=\"fallback.csv\"; filename*=UTF-8''%E2%82%AC%20rates.csv")).toBe("€ rates.csv");
    expect(name("attachment; filename*=UTF-8''%C3%BCbersicht.xlsx; filename=\"uebersicht.xlsx\"")).toBe("übersicht.xlsx");
  });

  it("decodes ISO-8859-1 filename*", () => {
    expect(name("attachment; filename*=ISO-8859-1''%E9t%E9.txt")).toBe("été.txt");
  });

  it("defaults to 'downloaded-file' when the header or the name is missing", () => {
    expect(DEFAULT_DOWNLOAD_NAME).toBe("downloaded-file");
    expect(name(null)).toBe("downloaded-file");
    expect(name(undefined)).toBe("downloaded-file");
    expect(name("")).toBe("downloaded-file");
    expect(name("attachment")).toBe("downloaded-file");
    expect(name('attachment; filename=""')).toBe("downloaded-file");
    expect(name("inline; foo=bar")).toBe("downloaded-file");
  });

  it("strips folders from a malicious name", () => {
    expect(name('attachment; filename="../../etc/passwd"')).toBe("passwd");
    // Inside a quoted string a backslash escapes the next character, so a real one is sent doubled.
    expect(name('attachment; filename="..\\\\..\\\\Windows\\\\evil.dll"')).toBe("evil.dll");
    expect(name("attachment; filename*=UTF-8''..%5C..%5CWindows%5Cevil.dll")).toBe("evil.dll");
    expect(name("attachment; filename*=UTF-8''..%2F..%2F.bashrc")).toBe("bashrc");
    expect(name('attachment; filename=".."')).toBe("downloaded-file");
    expect(name('attachment; filename="/"')).toBe("downloaded-file");
  });

  it("removes control and reserved characters", () => {
    expect(name("attachment; filename*=UTF-8''a%0D%0Ab%00c.txt")).toBe("abc.txt");
    expect(name('attachment; filename="a<b>c:d|e?.txt"')).toBe("abcde.txt");
  });

  it("survives sloppy headers the strict parser refuses", () => {
    expect(name("attachment; filename=my report.csv")).toBe("my report.csv");
    expect(name("attachment; filename*=UTF-16''x.txt")).toBe("downloaded-file");
    expect(name("attachment; filename*=UTF-16''x.txt; filename=\"plain.txt\"")).toBe("plain.txt");
  });

  it("never returns an empty name or one containing a path separator", () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const n = name(`attachment; filename="${s.replace(/["\\]/g, "")}"`);
        return n.length > 0 && !/[/\\]/.test(n) && !/^\.+$/.test(n);
      }),
    );
    fc.assert(fc.property(fc.string(), (header) => name(header).length > 0));
  });
});
