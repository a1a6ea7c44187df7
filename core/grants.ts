/**
 * Who may give whom which access (docs/security.md "Who may grant what"): the one rule the members
 * API enforces and the members screen follows to offer only what the person may give.
 *
 * - A caller gives, on a member or an invitation, only module permissions they hold themselves.
 * - Only an administrator makes someone an administrator, or gives any permission on the
 *   `members` or `settings` modules: those are the permissions that decide who may do what, so
 *   holding them is being an administrator in all but name.
 * - Nobody changes their own access (or removes themselves): another person does.
 * - A member or invitation that holds more than the caller could give is changed, removed, resent
 *   or revoked only by someone who could give it (an administrator is removed only by an administrator).
 */
import { MODULES, type Module, type Permission } from "./access.ts";
import { normalizePermissions, PERMISSIONS, type MemberAccess } from "./roles.ts";

/** Modules whose permissions only an administrator gives. */
export const ADMINISTRATOR_ONLY_MODULES: readonly Module[] = ["settings", "members"];

export type GrantVerdict = { allowed: true } | { allowed: false; reason: string };

const ALLOWED: GrantVerdict = { allowed: true };

/** Does `caller` hold `permission` on `module` (an administrator holds everything)? */
function holds(caller: MemberAccess, module: Module, permission: Permission): boolean {
  return caller.admin || (caller.permissions[module]?.includes(permission) ?? false);
}

/** What in `requested` the caller may not give, in the order of the rule; empty when all may be given. */
function beyond(caller: MemberAccess, requested: MemberAccess): { admin: boolean; administratorOnly: string[]; missing: string[] } {
  if (caller.admin) return { admin: false, administratorOnly: [], missing: [] };
  const permissions = normalizePermissions(requested.permissions);
  const administratorOnly: string[] = [];
  const missing: string[] = [];
  for (const [module, values] of Object.entries(permissions) as [Module, Permission[]][]) {
    for (const p of values) {
      if (ADMINISTRATOR_ONLY_MODULES.includes(module)) administratorOnly.push(`${module}: ${p}`);
      else if (!holds(caller, module, p)) missing.push(`${module}: ${p}`);
    }
  }
  return { admin: requested.admin, administratorOnly, missing };
}

/**
 * May `caller` give `requested` to a member or in an invitation? `self`: the member is the caller.
 * The reason is written for the person (shown as is, with a 403).
 */
export function canGrant(caller: MemberAccess, requested: MemberAccess, opts: { self?: boolean } = {}): GrantVerdict {
  if (opts.self) return { allowed: false, reason: "You cannot change your own role or permissions. Ask an administrator." };
  const b = beyond(caller, requested);
  if (b.admin) return { allowed: false, reason: "Only an administrator can make someone an administrator." };
  if (b.administratorOnly.length > 0) {
    return {
      allowed: false,
      reason: `Only an administrator can give permissions on the "members" or "settings" modules (${b.administratorOnly.join(", ")}).`,
    };
  }
  if (b.missing.length > 0) {
    return { allowed: false, reason: `You can give only permissions you have yourself. You do not have: ${b.missing.join(", ")}.` };
  }
  return ALLOWED;
}

/**
 * May `caller` change, remove, resend or revoke something that holds `current` (a member's access,
 * an invitation's)? Only if they could have given it: otherwise a member manager could demote or
 * remove an administrator, or send an administrator's invitation again. `action` says what, in
 * words ("remove Ada"), `holds` how the thing holds it ("they have", "it gives").
 */
export function canManage(caller: MemberAccess, current: MemberAccess, opts: { self?: boolean; action: string; holds: string }): GrantVerdict {
  if (opts.self) return { allowed: false, reason: `You cannot ${opts.action}: nobody changes their own access. Ask an administrator.` };
  const b = beyond(caller, current);
  const administratorOnly = [...(b.admin ? ["administrator access"] : []), ...b.administratorOnly];
  if (administratorOnly.length > 0) {
    return { allowed: false, reason: `Only an administrator can ${opts.action}: ${opts.holds} ${administratorOnly.join(", ")}.` };
  }
  if (b.missing.length > 0) {
    return { allowed: false, reason: `You cannot ${opts.action}: ${opts.holds} permissions you do not have yourself (${b.missing.join(", ")}).` };
  }
  return ALLOWED;
}

/**
 * What the caller may offer on the members screen: whether the Administrator preset, and which
 * module permissions. Derived from `canGrant`, so the screen and the API cannot disagree.
 */
export function grantable(caller: MemberAccess): { administrator: boolean; permission(module: Module, permission: Permission): boolean } {
  return {
    administrator: canGrant(caller, { admin: true, permissions: {} }).allowed,
    permission: (module, permission) => canGrant(caller, { admin: false, permissions: { [module]: [permission] } }).allowed,
  };
}

/** Every single module permission, in the fixed order: what the generated tests and the screen walk through. */
export const MODULE_PERMISSIONS: readonly { module: Module; permission: Permission }[] = MODULES.flatMap((module) =>
  PERMISSIONS.map((permission) => ({ module, permission })),
);
