import { create } from "zustand";
import { createFormatter, type DisplayPreference, type Formatter } from "@core/format";

export { DISPLAY_LOCALES, DISPLAY_PREFERENCE_KEY, parseDate, type DatePattern, type DisplayPreference, type Formatter } from "@core/format";

/**
 * The member's display preference and the formatter it makes: every screen formats dates, times,
 * money and volumes through `useFormat()` (React) or `currentFormat()` (grid formatters, exports).
 * The zone is the member's own, else the organization's default, else the browser's
 * (docs/decisions/0078-organization-time-zone.md); the locale the member's, else the browser's.
 */
interface DisplayState {
  preference: DisplayPreference;
  /** The current organization's default time zone; null until known. */
  organizationTimeZone: string | null;
  formatter: Formatter;
  setPreference: (preference: DisplayPreference) => void;
  setOrganizationTimeZone: (timeZone: string | null) => void;
}

const fallback = (organizationTimeZone: string | null) => ({
  locale: typeof navigator === "undefined" ? undefined : navigator.language,
  timeZone: organizationTimeZone ?? undefined,
});

export const useDisplayStore = create<DisplayState>((set, get) => ({
  preference: {},
  organizationTimeZone: null,
  formatter: createFormatter({}, fallback(null)),
  setPreference: (preference) => set({ preference, formatter: createFormatter(preference, fallback(get().organizationTimeZone)) }),
  setOrganizationTimeZone: (organizationTimeZone) => {
    if (organizationTimeZone === get().organizationTimeZone) return;
    set({ organizationTimeZone, formatter: createFormatter(get().preference, fallback(organizationTimeZone)) });
  },
}));

export const useFormat = (): Formatter => useDisplayStore((s) => s.formatter);
export const currentFormat = (): Formatter => useDisplayStore.getState().formatter;
