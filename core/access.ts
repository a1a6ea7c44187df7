/**
 * The access rule of docs/requirements.md#r-access, the one implementation the API and the UI share.
 * - `organization:admin` whose value is the current organization id grants everything;
 * - otherwise a claim of the asked type whose comma-separated values include the asked value.
 */
export interface Claim {
  type: string;
  value: string;
}

export const ADMIN_CLAIM = "organization:admin";

export type Module =
  | "customers"
  | "users"
  | "inbox"
  | "logs"
  | "tradePlatforms"
  | "dealing"
  | "plugins"
  | "tradesBlotter"
  | "tradesCopier"
  | "quotesMonitor"
  | "settings"
  | "members";

export const MODULES: readonly Module[] = [
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
];

export type Permission = "read" | "write" | "money";

function valuesOf(claim: Claim): string[] {
  return claim.value
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
}

export function isOrganizationAdmin(claims: readonly Claim[], organizationId: string | undefined): boolean {
  if (!organizationId) return false;
  return claims.some((c) => c.type === ADMIN_CLAIM && c.value.trim() === organizationId);
}

/** `hasAccess(type, value)` of docs/requirements.md#r-access for the given organization. */
export function hasAccess(claims: readonly Claim[], organizationId: string | undefined, type: string, value: string): boolean {
  if (isOrganizationAdmin(claims, organizationId)) return true;
  return claims.some((c) => c.type === type && valuesOf(c).includes(value));
}

/** Claim type of a module permission: `Module.{module}.{organizationId}`. */
export function moduleClaimType(module: Module, organizationId: string): string {
  return `Module.${module}.${organizationId}`;
}

export function hasModuleAccess(claims: readonly Claim[], organizationId: string | undefined, module: Module, permission: Permission): boolean {
  if (!organizationId) return false;
  return hasAccess(claims, organizationId, moduleClaimType(module, organizationId), permission);
}
