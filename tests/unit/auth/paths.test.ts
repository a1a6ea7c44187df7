// @vitest-environment node
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { isRawPath } from "~/auth";
import { parentPath, returnTargetFor, safeReturnPath } from "~/auth/returnPath";

describe("raw paths (docs/requirements.md#r-routes)", () => {
  it.each(["/auth-callback", "/auth-callback.html", "/silent-renew", "/silent-renew.html", "/health", "/health.html", "/health/", "/Auth-Callback"])(
    "%s is raw",
    (path) => expect(isRawPath(path)).toBe(true),
  );

  it.each(["/", "/logout-callback", "/healthz", "/health/x", "/auth-callback/extra", "/settings/members", "/x/health", "/silent-renew.htm"])(
    "%s is guarded",
    (path) => expect(isRawPath(path)).toBe(false),
  );
});

describe("return targets", () => {
  it("refuses paths a browser would read as another host", () => {
    for (const path of ["//evil.test", "/\\evil.test", "/\t/evil.test", "/\n/evil.test"]) expect(safeReturnPath(path)).toBeNull();
  });

  it("keeps the full path with query and hash", () => {
    expect(returnTargetFor("/settings/members?page=2#invite")).toBe("/settings/members?page=2#invite");
  });

  it("sends the callbacks back to the site root instead of to themselves", () => {
    expect(returnTargetFor("/auth-callback?code=x&state=y")).toBe("/");
    expect(returnTargetFor("/logout-callback?state=y")).toBe("/");
  });

  it("parent path of a callback", () => {
    expect(parentPath("/auth-callback")).toBe("/");
    expect(parentPath("/auth-callback.html")).toBe("/");
    expect(parentPath("/app/auth-callback")).toBe("/app");
  });

  it("never accepts a target outside this origin", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: "binary" }),
          fc.string({ unit: "binary" }).map((s) => `/${s}`),
          fc.constantFrom("/\t/evil.test", "/\n/evil.test", "/\\evil.test"),
        ),
        (s) => {
          const target = safeReturnPath(s);
          if (target === null) return true;
          // Resolved against our origin, an accepted target stays on it.
          return new URL(target, "https://toolbox.test").origin === "https://toolbox.test";
        },
      ),
    );
    fc.assert(
      fc.property(fc.webUrl(), (url) => safeReturnPath(url) === null),
      { numRuns: 50 },
    );
  });
});
