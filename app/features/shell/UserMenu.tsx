import { ChevronsUpDown } from "lucide-react";
import { useAuthStore } from "~/auth";
import { cn, focusRing } from "~/ui/cn";
import { DeferredTrigger } from "~/ui/DeferredTrigger";

const loadMenu = () => import("./UserMenuDropdown");

/** Who is signed in; colour mode; tools for support; sign out (the menu loads when it is about to open). */
export function UserMenu() {
  const profile = useAuthStore((s) => s.user?.profile);
  const name = displayName(profile);
  return (
    <DeferredTrigger
      load={loadMenu}
      popup="menu"
      className={cn("flex w-full items-center gap-2.5 rounded-md px-2 py-2 text-left hover:bg-subtle", focusRing, "focus-visible:ring-offset-0")}
      aria-label={`Account: ${name}`}
    >
      <span aria-hidden className="grid size-8 shrink-0 place-items-center rounded-full bg-primary text-xs font-semibold text-primary-foreground">
        {initials(name)}
      </span>
      <span className="grid min-w-0 flex-1 leading-tight">
        <span className="truncate text-sm font-medium">{name}</span>
        {profile?.email && profile.email !== name ? <span className="truncate text-xs text-muted">{profile.email}</span> : null}
      </span>
      <ChevronsUpDown aria-hidden className="size-4 shrink-0 text-muted" />
    </DeferredTrigger>
  );
}

export function displayName(profile: { name?: string; email?: string } | undefined): string {
  return profile?.name || profile?.email || "Signed in";
}

function initials(name: string): string {
  const parts = name
    .replace(/@.*/, "")
    .split(/[\s._-]+/)
    .filter(Boolean);
  return ((parts[0]?.[0] ?? "?") + (parts[1]?.[0] ?? "")).toUpperCase();
}
