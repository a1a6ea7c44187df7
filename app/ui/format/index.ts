import { create } from "zustand";
import { createFormatter, type DisplayPreference, type Formatter } from "@core/format";

export { DISPLAY_LOCALES, DISPLAY_PREFERENCE_KEY, parseDate, type DatePattern, type DisplayPreference, type Formatter } from "@core/format";

/**
 * The member's display preference and the formatter it makes: every screen formats dates, times,
 * money and volumes through `useFormat()` (React) or `currentFormat()` (grid formatters, exports).
 * Until the preference is read, the browser's locale and zone apply.
 */
interface DisplayState {
  preference: DisplayPreference;
  formatter: Formatter;
  setPreference: (preference: DisplayPreference) => void;
}

const browser = () => ({
  locale: typeof navigator === "undefined" ? undefined : navigator.language,
  timeZone: undefined,
});

export const useDisplayStore = create<DisplayState>((set) => ({
  preference: {},
  formatter: createFormatter({}, browser()),
  setPreference: (preference) => set({ preference, formatter: createFormatter(preference, browser()) }),
}));

export const useFormat = (): Formatter => useDisplayStore((s) => s.formatter);
export const currentFormat = (): Formatter => useDisplayStore.getState().formatter;
