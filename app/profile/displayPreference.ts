import { useEffect } from "react";
import { DISPLAY_PREFERENCE_KEY, useDisplayStore, type DisplayPreference } from "~/ui/format";
import { useMemberPreferences } from "./memberPreferences";
import { selectCurrentOrganization, useCurrentOrganization } from "./selectors";
import { useProfileStore } from "./store";

const storageKey = (organizationId: string) => `toolbox:display:${organizationId}`;

function parse(value: unknown): DisplayPreference {
  if (!value || typeof value !== "object") return {};
  const { locale, timeZone } = value as Record<string, unknown>;
  return { locale: typeof locale === "string" ? locale : null, timeZone: typeof timeZone === "string" ? timeZone : null };
}

/**
 * Applies the member's display preference (GET /api/preferences/display) in this organization;
 * the last one seen is kept in localStorage so the first paint already uses it. The organization's
 * default time zone (from the organizations list) applies where the member chose no zone.
 */
export function useDisplayPreferenceSync() {
  const preferences = useMemberPreferences();
  const organizationId = preferences.scope;
  const organizationTimeZone = useCurrentOrganization()?.timeZone ?? null;
  useEffect(() => {
    useDisplayStore.getState().setOrganizationTimeZone(organizationTimeZone);
  }, [organizationTimeZone]);
  useEffect(() => {
    if (!organizationId) return;
    const { setPreference } = useDisplayStore.getState();
    try {
      const saved = window.localStorage.getItem(storageKey(organizationId));
      if (saved) setPreference(parse(JSON.parse(saved)));
    } catch {
      // Storage unavailable or unreadable: the API answer below decides.
    }
    const stop = new AbortController();
    preferences
      .read(DISPLAY_PREFERENCE_KEY, stop.signal)
      .then((value) => {
        const preference = parse(value);
        remember(organizationId, preference);
        setPreference(preference);
      })
      .catch(() => {}); // silent: the browser's own format stays
    return () => stop.abort();
  }, [organizationId, preferences]);
}

/**
 * For pages outside the signed-in layout (/health): the display last seen in the current
 * organization (the member's preference from localStorage, the organization's zone from the
 * persisted profile), applied without asking the API. Call it in the browser only.
 */
export function applyCachedDisplay() {
  const organization = selectCurrentOrganization(useProfileStore.getState());
  const display = useDisplayStore.getState();
  display.setOrganizationTimeZone(organization?.timeZone ?? null);
  if (!organization) return;
  try {
    const saved = window.localStorage.getItem(storageKey(organization.id));
    if (saved) display.setPreference(parse(JSON.parse(saved)));
  } catch {
    // Storage unavailable: the browser's own format stays.
  }
}

function remember(organizationId: string, preference: DisplayPreference) {
  try {
    window.localStorage.setItem(storageKey(organizationId), JSON.stringify(preference));
  } catch {
    // Private mode: nothing to keep.
  }
}

/** Saves the member's choice and applies it at once. */
export async function saveDisplayPreference(
  write: (key: string, value: unknown) => Promise<unknown>,
  organizationId: string | null,
  preference: DisplayPreference,
) {
  await write(DISPLAY_PREFERENCE_KEY, preference);
  if (organizationId) remember(organizationId, preference);
  useDisplayStore.getState().setPreference(preference);
}
