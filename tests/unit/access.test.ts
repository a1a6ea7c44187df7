// @vitest-environment node
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ADMIN_CLAIM, hasAccess, hasModuleAccess, isOrganizationAdmin, MODULES, moduleClaimType, type Claim, type Permission } from "../../core/access.ts";

const X = "6f1c1e8a-0a7b-4f7e-9a43-1d0c8b7f0001";
const Y = "6f1c1e8a-0a7b-4f7e-9a43-1d0c8b7f0002";
const PERMISSIONS: Permission[] = ["read", "write", "money"];

describe("the access rule of docs/requirements.md#r-access", () => {
  it("module claim type is Module.{module}.{organizationId}", () => {
    expect(moduleClaimType("members", X)).toBe(`Module.members.${X}`);
  });

  it("grants everything in X to the administrator of X", () => {
    const claims: Claim[] = [{ type: ADMIN_CLAIM, value: X }];
    expect(isOrganizationAdmin(claims, X)).toBe(true);
    expect(hasModuleAccess(claims, X, "customers", "money")).toBe(true);
    expect(hasAccess(claims, X, "anything at all", "whatever")).toBe(true);
  });

  it("gives the administrator of X nothing special in Y", () => {
    const claims: Claim[] = [{ type: ADMIN_CLAIM, value: X }];
    expect(isOrganizationAdmin(claims, Y)).toBe(false);
    expect(hasModuleAccess(claims, Y, "customers", "read")).toBe(false);
  });

  it("matches one value of a comma-separated list, spaces around commas allowed", () => {
    const claims: Claim[] = [{ type: moduleClaimType("customers", X), value: "read, write ,money" }];
    for (const p of PERMISSIONS) expect(hasModuleAccess(claims, X, "customers", p), p).toBe(true);
  });

  it("does not match a value that merely contains the asked one", () => {
    const claims: Claim[] = [{ type: moduleClaimType("customers", X), value: "readonly,overwrite" }];
    expect(hasModuleAccess(claims, X, "customers", "read")).toBe(false);
    expect(hasModuleAccess(claims, X, "customers", "write")).toBe(false);
    expect(hasAccess([{ type: "t", value: "read" }], X, "t", "rea")).toBe(false);
    expect(hasAccess([{ type: "t", value: "" }], X, "t", "")).toBe(false);
  });

  it("needs the exact claim type: another module or another organization does not count", () => {
    const claims: Claim[] = [
      { type: moduleClaimType("customers", X), value: "read" },
      { type: moduleClaimType("members", Y), value: "read" },
    ];
    expect(hasModuleAccess(claims, X, "members", "read")).toBe(false);
    expect(hasModuleAccess(claims, Y, "customers", "read")).toBe(false);
    expect(hasModuleAccess(claims, Y, "members", "read")).toBe(true);
  });

  it("grants nothing without a current organization", () => {
    const claims: Claim[] = [{ type: ADMIN_CLAIM, value: X }];
    expect(hasModuleAccess(claims, undefined, "members", "read")).toBe(false);
    expect(isOrganizationAdmin(claims, undefined)).toBe(false);
  });

  it("lists the modules of the requirements (docs/requirements.md#r-access)", () => {
    expect([...MODULES].sort()).toEqual(
      [
        "customers",
        "users",
        "inbox",
        "logs",
        "tradePlatforms",
        "dealing",
        "plugins",
        "tradesBlotter",
        "tradesCopier",
        "quotesMonitor",
        "settings",
        "members",
      ].sort(),
    );
  });
});

describe("properties", () => {
  const org = fc.uuid();
  const moduleArb = fc.constantFrom(...MODULES);
  const permission = fc.constantFrom(...PERMISSIONS);
  const word = fc.stringMatching(/^[a-z]{1,8}$/);
  const spaces = fc.stringMatching(/^ {0,3}$/);
  const otherClaim = fc.record({ type: fc.string(), value: fc.string() });

  it("the administrator of X has every module permission in X, whatever else they hold", () => {
    fc.assert(
      fc.property(org, moduleArb, permission, fc.array(otherClaim), (x, m, p, others) => {
        const claims = [...others, { type: ADMIN_CLAIM, value: x }];
        return hasModuleAccess(claims, x, m, p);
      }),
    );
  });

  it("…and administering X gives nothing in another organization Y", () => {
    fc.assert(
      fc.property(org, org, moduleArb, permission, (x, y, m, p) => {
        fc.pre(x !== y);
        return !hasModuleAccess([{ type: ADMIN_CLAIM, value: x }], y, m, p);
      }),
    );
  });

  it("a value listed anywhere in the comma-separated list, with any spacing, grants it", () => {
    fc.assert(
      fc.property(org, moduleArb, permission, fc.array(word), fc.array(word), spaces, spaces, (x, m, p, before, after, s1, s2) => {
        const value = [...before, `${s1}${p}${s2}`, ...after].join(`${s1},${s2}`);
        return hasModuleAccess([{ type: moduleClaimType(m, x), value }], x, m, p);
      }),
    );
  });

  it("only whole values count: a value that merely contains the asked one never grants it", () => {
    fc.assert(
      fc.property(org, moduleArb, permission, word, word, (x, m, p, prefix, suffix) => {
        fc.pre(prefix + suffix !== "");
        const value = ["x", `${prefix}${p}${suffix}`, "y"].join(",");
        fc.pre(
          !value
            .split(",")
            .map((v) => v.trim())
            .includes(p),
        );
        return !hasModuleAccess([{ type: moduleClaimType(m, x), value }], x, m, p);
      }),
    );
  });

  it("without the admin claim, access equals: some claim of exactly that type lists the value", () => {
    const claim = fc.record({
      type: fc.oneof(fc.constantFrom(`Module.members.${X}`, `Module.customers.${X}`, `Module.members.${Y}`), fc.string()),
      value: fc.array(fc.constantFrom("read", "write", "money", "readonly", " read ", ""), { maxLength: 4 }).map((vs) => vs.join(",")),
    });
    fc.assert(
      fc.property(fc.array(claim), moduleArb, permission, (claims, m, p) => {
        const type = moduleClaimType(m, X);
        const expected = claims.some((c) => c.type === type && c.value.split(",").some((v) => v.trim() === p));
        return hasModuleAccess(claims, X, m, p) === expected;
      }),
    );
  });
});
