import { Bug, LogOut, Monitor, Moon, Palette, Sun } from "lucide-react";
import { Link } from "react-router";
import { logout, useAuthStore } from "~/auth";
import { useColorMode, type ColorMode } from "~/ui/colorMode";
import type { DeferredOverlayProps } from "~/ui/DeferredTrigger";
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
import { displayName } from "./UserMenu";

const MODES: { value: ColorMode; label: string; icon: typeof Sun }[] = [
  { value: "light", label: "Light", icon: Sun },
  { value: "dark", label: "Dark", icon: Moon },
  { value: "system", label: "System", icon: Monitor },
];

/** The account menu itself, loaded by UserMenu's button when it is about to open. */
export default function UserMenuDropdown({ trigger, defaultOpen }: DeferredOverlayProps) {
  const profile = useAuthStore((s) => s.user?.profile);
  const { mode, setMode } = useColorMode();
  const name = displayName(profile);
  return (
    <DropdownMenu defaultOpen={defaultOpen}>
      <DropdownMenuTrigger asChild>{trigger}</DropdownMenuTrigger>
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
