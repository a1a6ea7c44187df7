/**
 * Role presets over the claims of docs/requirements.md#r-access (docs/administration.md). A member's access is either
 * "administrator" (`organization:admin` = the organization id) or a set of module permissions,
 * each stored as the claim `Module.{module}.{organizationId}` = "read,write,money". A preset is
 * only a name for one such set: changing a member to a preset writes its claims, and a member
 * whose claims match a preset is shown with its name ("custom" otherwise).
 */
import { ADMIN_CLAIM, MODULES, isOrganizationAdmin, moduleClaimType, type Claim, type Module, type Permission } from "./access.ts";

export const PERMISSIONS: readonly Permission[] = ["read", "write", "money"];

export type ModulePermissions = Partial<Record<Module, Permission[]>>;

/** What a member may do in one organization. */
export interface MemberAccess {
  admin: boolean;
  /** Ignored when `admin` (an administrator may do everything). */
  permissions: ModulePermissions;
}

export const ROLE_PRESETS = ["administrator", "dealer", "riskManager", "support", "viewer"] as const;
export type RolePreset = (typeof ROLE_PRESETS)[number];
export type Role = RolePreset | "custom";

export const ROLE_LABELS: Record<Role, string> = {
  administrator: "Administrator",
  dealer: "Dealer",
  riskManager: "Risk manager",
  support: "Support",
  viewer: "Viewer",
  custom: "Custom",
};

const everyModuleExcept = (excluded: readonly Module[], permissions: Permission[]): ModulePermissions =>
  Object.fromEntries(MODULES.filter((m) => !excluded.includes(m)).map((m) => [m, permissions]));

export const PRESET_ACCESS: Record<RolePreset, MemberAccess> = {
  administrator: { admin: true, permissions: {} },
  dealer: {
    admin: false,
    permissions: {
      customers: ["read", "write"],
      users: ["read", "write", "money"],
      inbox: ["read", "write"],
      logs: ["read"],
      tradePlatforms: ["read"],
      dealing: ["read", "write"],
      plugins: ["read"],
      tradesBlotter: ["read"],
      tradesCopier: ["read", "write"],
      quotesMonitor: ["read"],
    },
  },
  riskManager: {
    admin: false,
    permissions: {
      customers: ["read"],
      users: ["read", "write"],
      inbox: ["read"],
      logs: ["read"],
      tradePlatforms: ["read"],
      dealing: ["read", "write"],
      plugins: ["read", "write"],
      tradesBlotter: ["read"],
      tradesCopier: ["read"],
      quotesMonitor: ["read", "write"],
    },
  },
  support: {
    admin: false,
    permissions: { customers: ["read", "write"], users: ["read"], inbox: ["read", "write"], logs: ["read"], tradePlatforms: ["read"] },
  },
  viewer: { admin: false, permissions: everyModuleExcept(["settings", "members"], ["read"]) },
};

/** Permissions in their fixed order, without repeats; modules without any are left out. */
export function normalizePermissions(permissions: ModulePermissions): ModulePermissions {
  const out: ModulePermissions = {};
  for (const m of MODULES) {
    const given = permissions[m];
    if (!given) continue;
    const values = PERMISSIONS.filter((p) => given.includes(p));
    if (values.length > 0) out[m] = values;
  }
  return out;
}

/** The claims that give `access` in `organizationId`. */
export function claimsOfAccess(access: MemberAccess, organizationId: string): Claim[] {
  if (access.admin) return [{ type: ADMIN_CLAIM, value: organizationId }];
  return Object.entries(normalizePermissions(access.permissions)).map(([module, values]) => ({
    type: moduleClaimType(module as Module, organizationId),
    value: values.join(","),
  }));
}

/** A member's access in `organizationId`, read from their claims there (other claims are ignored). */
export function accessOfClaims(claims: readonly Claim[], organizationId: string): MemberAccess {
  if (isOrganizationAdmin(claims, organizationId)) return { admin: true, permissions: {} };
  const permissions: ModulePermissions = {};
  for (const m of MODULES) {
    const claim = claims.find((c) => c.type === moduleClaimType(m, organizationId));
    if (!claim) continue;
    const values = claim.value.split(",").map((v) => v.trim());
    permissions[m] = PERMISSIONS.filter((p) => values.includes(p));
  }
  return { admin: false, permissions: normalizePermissions(permissions) };
}

/** The preset `access` matches, or "custom". */
export function roleOfAccess(access: MemberAccess): Role {
  if (access.admin) return "administrator";
  const key = JSON.stringify(normalizePermissions(access.permissions));
  return ROLE_PRESETS.find((r) => r !== "administrator" && JSON.stringify(normalizePermissions(PRESET_ACCESS[r].permissions)) === key) ?? "custom";
}
