import { Bug, ChevronsUpDown, LogOut, Monitor, Moon, Palette, Sun } from "lucide-react";
import { Link } from "react-router";
import { logout, useAuthStore } from "~/auth";
import { useColorMode, type ColorMode } from "~/ui/colorMode";
import { cn, focusRing } from "~/ui/cn";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuGroup,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuRadioGroup,
  DropdownMenuRadioItem,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "~/ui/DropdownMenu";

const MODES: { value: ColorMode; label: string; icon: typeof Sun }[] = [
  { value: "light", label: "Light", icon: Sun },
  { value: "dark", label: "Dark", icon: Moon },
  { value: "system", label: "System", icon: Monitor },
];

/** Who is signed in; colour mode; tools for support; sign out. */
export function UserMenu() {
  const profile = useAuthStore((s) => s.user?.profile);
  const { mode, setMode } = useColorMode();
  const name = profile?.name || profile?.email || "Signed in";
  return (
    <DropdownMenu>
      <DropdownMenuTrigger
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
      </DropdownMenuTrigger>
      <DropdownMenuContent side="top" align="start" className="w-(--radix-dropdown-menu-trigger-width) min-w-60">
        <DropdownMenuLabel className="grid gap-0.5">
          <span className="truncate text-sm font-medium text-fg">{name}</span>
          {profile?.email ? <span className="truncate font-normal">{profile.email}</span> : null}
        </DropdownMenuLabel>
        <DropdownMenuSeparator />
        <DropdownMenuLabel className="flex items-center gap-2">
          <Palette aria-hidden className="size-3.5" /> Colour mode
        </DropdownMenuLabel>
        <DropdownMenuRadioGroup value={mode} onValueChange={(v) => setMode(v as ColorMode)}>
          {MODES.map(({ value, label, icon: Icon }) => (
            <DropdownMenuRadioItem key={value} value={value} onSelect={(e) => e.preventDefault()}>
              <Icon aria-hidden />
              {label}
            </DropdownMenuRadioItem>
          ))}
        </DropdownMenuRadioGroup>
        <DropdownMenuSeparator />
        <DropdownMenuGroup>
          <DropdownMenuItem asChild>
            <Link to="/debug">
              <Bug aria-hidden />
              Diagnostics
            </Link>
          </DropdownMenuItem>
          <DropdownMenuItem asChild>
            <Link to="/index-sample">
              <Palette aria-hidden />
              UI building blocks
            </Link>
          </DropdownMenuItem>
        </DropdownMenuGroup>
        <DropdownMenuSeparator />
        <DropdownMenuItem onSelect={() => void logout()}>
          <LogOut aria-hidden />
          Sign out
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}

function initials(name: string): string {
  const parts = name.replace(/@.*/, "").split(/[\s._-]+/).filter(Boolean);
  return ((parts[0]?.[0] ?? "?") + (parts[1]?.[0] ?? "")).toUpperCase();
}
