import { useId } from "react";
import { MODULES, type Module, type Permission } from "@core/access";
import { canGrant, grantable } from "@core/grants";
import {
  PERMISSIONS,
  PRESET_ACCESS,
  ROLE_LABELS,
  ROLE_PRESETS,
  normalizePermissions,
  roleOfAccess,
  type MemberAccess,
  type ModulePermissions,
  type Role,
} from "@core/roles";
import { Field } from "~/ui/Field";
import { Select } from "~/ui/Select";
import type { AccessChoice } from "./membersApi";

export const MODULE_LABELS: Record<Module, string> = {
  customers: "Customers",
  users: "Trading accounts",
  inbox: "Inbox",
  logs: "Logs",
  tradePlatforms: "Trade platforms",
  dealing: "Dealing",
  plugins: "Plugins",
  tradesBlotter: "Trades Blotter",
  tradesCopier: "Trades Copier",
  quotesMonitor: "Quotes Monitor",
  settings: "Settings",
  members: "Members",
};

const PERMISSION_LABELS: Record<Permission, string> = { read: "Read", write: "Write", money: "Money" };

export const ROLE_OPTIONS = [...ROLE_PRESETS, "custom" as const].map((r) => ({ value: r, label: ROLE_LABELS[r] }));

export interface AccessDraft {
  role: Role;
  permissions: ModulePermissions;
}

export function draftOf(role: Role, permissions: ModulePermissions): AccessDraft {
  return { role, permissions: role === "administrator" ? {} : permissions };
}

/** What to send: the preset's name when the draft is one, else the permissions. */
export function choiceOf(draft: AccessDraft): AccessChoice {
  if (draft.role !== "custom") return { role: draft.role };
  const role = roleOfAccess({ admin: false, permissions: draft.permissions });
  return role === "custom" ? { permissions: normalizePermissions(draft.permissions) } : { role: role };
}

/** Why a choice is disabled, said once under the editor (core/grants.ts). */
const NOT_YOURS = "You can give only permissions you have yourself; only an administrator gives Administrator, Members or Settings.";

/**
 * A role preset, and the per-module permissions it stands for (editable: then the role becomes Custom).
 * `administrator: false` leaves the Administrator preset out (API clients only get module permissions).
 * `caller`: the person's own access; only what they may give (core/grants.ts) can be chosen, the
 * rest is disabled with the reason, so the screen offers what the API would accept.
 */
export function AccessEditor({
  value,
  onChange,
  administrator = true,
  caller,
}: {
  value: AccessDraft;
  onChange: (next: AccessDraft) => void;
  administrator?: boolean;
  caller?: MemberAccess;
}) {
  const limitId = useId();
  const may = caller ? grantable(caller) : undefined;
  const limited = caller !== undefined && !caller.admin;
  const presetAllowed = (role: Role) => !caller || role === "custom" || canGrant(caller, PRESET_ACCESS[role]).allowed;
  const options = (administrator ? ROLE_OPTIONS : ROLE_OPTIONS.filter((o) => o.value !== "administrator")).map((o) => ({
    ...o,
    disabled: !presetAllowed(o.value),
  }));
  const admin = value.role === "administrator";
  const shown = value.role === "custom" ? value.permissions : PRESET_ACCESS[value.role].permissions;
  const toggle = (module: Module, permission: Permission, on: boolean) => {
    const current = new Set(shown[module] ?? []);
    if (on) current.add(permission);
    else current.delete(permission);
    const permissions = normalizePermissions({ ...shown, [module]: [...current] });
    onChange({ role: roleOfAccess({ admin: false, permissions }), permissions });
  };
  return (
    <div className="grid gap-3">
      {limited ? (
        <p id={limitId} className="text-xs text-muted">
          {NOT_YOURS}
        </p>
      ) : null}
      <Field label="Role" description={admin ? "Administrators may do everything in this organization, including managing members." : undefined}>
        <Select
          options={options}
          value={value.role}
          onValueChange={(role) => onChange(draftOf(role as Role, role === "custom" ? shown : PRESET_ACCESS[role as Exclude<Role, "custom">].permissions))}
        />
      </Field>
      {admin ? null : (
        <table className="w-full text-sm" aria-label="Permissions by module">
          <thead>
            <tr className="text-left text-xs text-muted">
              <th scope="col" className="py-1 font-medium">
                Module
              </th>
              {PERMISSIONS.map((p) => (
                <th key={p} scope="col" className="w-16 py-1 text-center font-medium">
                  {PERMISSION_LABELS[p]}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-border">
            {MODULES.map((m) => (
              <tr key={m}>
                <th scope="row" className="py-1.5 text-left font-normal">
                  {MODULE_LABELS[m]}
                </th>
                {PERMISSIONS.map((p) => (
                  <td key={p} className="text-center">
                    <input
                      type="checkbox"
                      className="size-4 accent-[var(--color-primary)]"
                      aria-label={`${MODULE_LABELS[m]}: ${PERMISSION_LABELS[p]}`}
                      checked={shown[m]?.includes(p) ?? false}
                      disabled={may ? !may.permission(m, p) : false}
                      aria-describedby={may && !may.permission(m, p) ? limitId : undefined}
                      onChange={(e) => toggle(m, p, e.target.checked)}
                    />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
