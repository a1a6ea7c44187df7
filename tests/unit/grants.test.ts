// @vitest-environment node
/**
 * Who may grant what (core/grants.ts, docs/security.md "Who may grant what"), generated from the
 * role presets and the module list: for every pair (caller's access, access asked for) the answer
 * is allowed exactly when the rule says so. The rule is restated here through the claims and the
 * shared access rule (core/access.ts), not through grants.ts, so the two are checked against
 * each other.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasModuleAccess, isOrganizationAdmin, MODULES, type Module, type Permission } from "../../core/access.ts";
import { canGrant, canManage, grantable, MODULE_PERMISSIONS } from "../../core/grants.ts";
import { claimsOfAccess, PERMISSIONS, PRESET_ACCESS, ROLE_PRESETS, type MemberAccess, type ModulePermissions } from "../../core/roles.ts";

const ORG = "6f1c3c2e-8a55-4b8e-9d7e-2b7c0e6c9a10";

/** The rule in words: an administrator gives anything; anyone else only module permissions they hold, never on members or settings, never administrator. */
function expected(caller: MemberAccess, requested: MemberAccess): boolean {
  const claims = claimsOfAccess(caller, ORG);
  if (isOrganizationAdmin(claims, ORG)) return true;
  if (requested.admin) return false;
  return Object.entries(requested.permissions).every(([module, values]) =>
    (values ?? []).every((p) => module !== "members" && module !== "settings" && hasModuleAccess(claims, ORG, module as Module, p)),
  );
}

const single = (module: Module, permission: Permission): MemberAccess => ({ admin: false, permissions: { [module]: [permission] } });
const withMembers = (base: MemberAccess, extra: ModulePermissions): MemberAccess => ({ admin: false, permissions: { ...base.permissions, ...extra } });

/** Callers: every preset, every single module permission, and each preset that also manages members (the custom role that can reach the members routes). */
const CALLERS: [string, MemberAccess][] = [
  ...ROLE_PRESETS.map((r) => [r, PRESET_ACCESS[r]] as [string, MemberAccess]),
  ...MODULE_PERMISSIONS.map(({ module, permission }) => [`${module}:${permission}`, single(module, permission)] as [string, MemberAccess]),
  ...ROLE_PRESETS.filter((r) => r !== "administrator").map(
    (r) => [`${r}+members:write`, withMembers(PRESET_ACCESS[r], { members: ["read", "write"] })] as [string, MemberAccess],
  ),
  ["members+settings", { admin: false, permissions: { members: ["read", "write"], settings: ["read", "write"] } }],
];

/** Asked for: every preset and every single module permission. */
const REQUESTED: [string, MemberAccess][] = [
  ...ROLE_PRESETS.map((r) => [r, PRESET_ACCESS[r]] as [string, MemberAccess]),
  ...MODULE_PERMISSIONS.map(({ module, permission }) => [`${module}:${permission}`, single(module, permission)] as [string, MemberAccess]),
];

const accessArb: fc.Arbitrary<MemberAccess> = fc.record({
  admin: fc.boolean(),
  permissions: fc.dictionary(fc.constantFrom(...MODULES), fc.subarray([...PERMISSIONS], { minLength: 1 })),
});

describe("nobody grants more than they hold", () => {
  it("every (caller, asked) pair of presets and module permissions: allowed exactly when the rule says so", () => {
    let allowed = 0;
    for (const [callerName, caller] of CALLERS) {
      for (const [askedName, asked] of REQUESTED) {
        const verdict = canGrant(caller, asked);
        expect(verdict.allowed, `${callerName} gives ${askedName}`).toBe(expected(caller, asked));
        if (verdict.allowed) allowed++;
        else expect(verdict.reason.length).toBeGreaterThan(20);
        // Managing something that holds `asked` (change, remove, resend, revoke) follows the same line.
        expect(canManage(caller, asked, { action: "x", holds: "y" }).allowed, `${callerName} manages ${askedName}`).toBe(expected(caller, asked));
      }
    }
    // Not vacuous: the administrator gives everything, a dealer manager some, a viewer almost nothing.
    expect(allowed).toBeGreaterThan(REQUESTED.length);
  });

  it("holds for any accesses, not only the presets", () => {
    fc.assert(
      fc.property(accessArb, accessArb, (caller, asked) => {
        expect(canGrant(caller, asked).allowed).toBe(expected(caller, asked));
      }),
      { numRuns: 2000 },
    );
  });

  it("nobody changes their own access, not even an administrator", () => {
    for (const [, caller] of CALLERS) {
      for (const [, asked] of REQUESTED) {
        const verdict = canGrant(caller, asked, { self: true });
        expect(verdict).toEqual({ allowed: false, reason: "You cannot change your own role or permissions. Ask an administrator." });
        expect(canManage(caller, asked, { self: true, action: "remove yourself", holds: "you have" }).allowed).toBe(false);
      }
    }
  });

  it("says why, in words a person understands", () => {
    const manager = withMembers(PRESET_ACCESS.support, { members: ["read", "write"] });
    expect(canGrant(manager, PRESET_ACCESS.administrator)).toEqual({ allowed: false, reason: "Only an administrator can make someone an administrator." });
    expect(canGrant(manager, { admin: false, permissions: { members: ["write"], settings: ["read"] } })).toEqual({
      allowed: false,
      reason: 'Only an administrator can give permissions on the "members" or "settings" modules (settings: read, members: write).',
    });
    expect(canGrant(manager, { admin: false, permissions: { users: ["read", "money"], customers: ["read"] } })).toEqual({
      allowed: false,
      reason: "You can give only permissions you have yourself. You do not have: users: money.",
    });
    expect(canManage(manager, PRESET_ACCESS.administrator, { action: "remove Ada", holds: "they have" })).toEqual({
      allowed: false,
      reason: "Only an administrator can remove Ada: they have administrator access.",
    });
    expect(canManage(manager, PRESET_ACCESS.dealer, { action: "revoke the invitation to d@example.test", holds: "it gives" })).toEqual({
      allowed: false,
      reason: expect.stringMatching(/^You cannot revoke the invitation to d@example.test: it gives permissions you do not have yourself \(users: write/),
    });
    expect(canGrant(manager, PRESET_ACCESS.support)).toEqual({ allowed: true });
  });

  it("the screen's choices are the rule's: the Administrator preset and each checkbox", () => {
    for (const [name, caller] of CALLERS) {
      const g = grantable(caller);
      expect(g.administrator, name).toBe(caller.admin);
      for (const { module, permission } of MODULE_PERMISSIONS) {
        expect(g.permission(module, permission), `${name}: ${module}:${permission}`).toBe(expected(caller, single(module, permission)));
      }
    }
  });
});
