import { create } from "zustand";

/** docs/requirements.md#r-states: the chosen colour mode; 'system' follows the operating system's preference. */
export type ColorMode = "light" | "dark" | "system";
export type ResolvedColorMode = "light" | "dark";

/** Local storage key, shared with the inline script that runs before first paint. */
export const COLOR_MODE_KEY = "toolbox-color-mode";
const DARK_QUERY = "(prefers-color-scheme: dark)";

const isBrowser = typeof window !== "undefined";

function readStoredMode(): ColorMode {
  if (!isBrowser) return "system";
  try {
    const v = localStorage.getItem(COLOR_MODE_KEY);
    return v === "light" || v === "dark" ? v : "system";
  } catch {
    return "system";
  }
}

export function resolveColorMode(mode: ColorMode): ResolvedColorMode {
  if (mode !== "system") return mode;
  return isBrowser && window.matchMedia?.(DARK_QUERY).matches ? "dark" : "light";
}

function applyColorMode(mode: ColorMode): ResolvedColorMode {
  const resolved = resolveColorMode(mode);
  const root = document.documentElement;
  root.classList.toggle("dark", resolved === "dark");
  root.style.colorScheme = resolved;
  return resolved;
}

interface ColorModeState {
  mode: ColorMode;
  resolved: ResolvedColorMode;
  setMode: (mode: ColorMode) => void;
}

export const useColorMode = create<ColorModeState>()((set) => ({
  mode: readStoredMode(),
  resolved: resolveColorMode(readStoredMode()),
  setMode(mode) {
    try {
      if (mode === "system") localStorage.removeItem(COLOR_MODE_KEY);
      else localStorage.setItem(COLOR_MODE_KEY, mode);
    } catch {
      // Private mode or full storage: the choice still applies to this tab.
    }
    set({ mode, resolved: applyColorMode(mode) });
  },
}));

// While on 'system', follow the operating system when it switches (e.g. at sunset).
if (isBrowser && window.matchMedia) {
  window.matchMedia(DARK_QUERY).addEventListener?.("change", () => {
    const { mode } = useColorMode.getState();
    if (mode === "system") useColorMode.setState({ resolved: applyColorMode(mode) });
  });
}
