// @vitest-environment node
import { describe, expect, it } from "vitest";
import { ADMIN_CLAIM, hasModuleAccess, MODULES } from "../../core/access.ts";
import { accessOfClaims, claimsOfAccess, PRESET_ACCESS, ROLE_PRESETS, roleOfAccess } from "../../core/roles.ts";
import { AccessInputSchema, InviteSchema } from "../../core/schemas/members.ts";

const ORG = "6f1c3c2e-8a55-4b8e-9d7e-2b7c0e6c9a10";

describe("role presets over the claims of docs/requirements.md#r-access", () => {
  it("an administrator is the organization:admin claim, and nothing else", () => {
    expect(claimsOfAccess(PRESET_ACCESS.administrator, ORG)).toEqual([{ type: ADMIN_CLAIM, value: ORG }]);
  });

  it("every preset reads back as itself from the claims it writes, and the shared rule grants exactly its permissions", () => {
    for (const role of ROLE_PRESETS) {
      const claims = claimsOfAccess(PRESET_ACCESS[role], ORG);
      expect(roleOfAccess(accessOfClaims(claims, ORG))).toBe(role);
      if (role === "administrator") continue;
      for (const m of MODULES) {
        for (const p of ["read", "write", "money"] as const) {
          expect(hasModuleAccess(claims, ORG, m, p), `${role} ${m} ${p}`).toBe(PRESET_ACCESS[role].permissions[m]?.includes(p) ?? false);
        }
      }
    }
  });

  it("a Viewer reads trading accounts but moves no money; a Dealer does", () => {
    const viewer = claimsOfAccess(PRESET_ACCESS.viewer, ORG);
    expect(hasModuleAccess(viewer, ORG, "users", "read")).toBe(true);
    expect(hasModuleAccess(viewer, ORG, "users", "money")).toBe(false);
    expect(hasModuleAccess(viewer, ORG, "members", "read")).toBe(false);
    expect(hasModuleAccess(claimsOfAccess(PRESET_ACCESS.dealer, ORG), ORG, "users", "money")).toBe(true);
  });

  it("any other set of permissions is Custom, written in a fixed order without repeats", () => {
    const access = { admin: false, permissions: { users: ["money", "read", "read"] as ("read" | "money")[], logs: [] } };
    expect(roleOfAccess(access)).toBe("custom");
    expect(claimsOfAccess(access, ORG)).toEqual([{ type: `Module.users.${ORG}`, value: "read,money" }]);
  });

  it("claims of another organization are not read as this one's", () => {
    const other = "0b8f7c1e-1111-4b8e-9d7e-2b7c0e6c9a10";
    expect(
      accessOfClaims(
        [
          { type: ADMIN_CLAIM, value: other },
          { type: `Module.users.${other}`, value: "read" },
        ],
        ORG,
      ),
    ).toEqual({ admin: false, permissions: {} });
  });

  it("the API's body: a preset or permissions, exactly one, modules and permissions by name", () => {
    expect(AccessInputSchema.safeParse({ role: "riskManager" }).success).toBe(true);
    expect(AccessInputSchema.safeParse({ permissions: { users: ["read"] } }).success).toBe(true);
    expect(AccessInputSchema.safeParse({}).success).toBe(false);
    expect(AccessInputSchema.safeParse({ role: "viewer", permissions: {} }).success).toBe(false);
    expect(AccessInputSchema.safeParse({ permissions: { nope: ["read"] } }).success).toBe(false);
    expect(InviteSchema.parse({ email: "  Ada@Example.COM ", role: "viewer" }).email).toBe("ada@example.com");
  });
});
