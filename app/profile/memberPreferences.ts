import { useMemo } from "react";
import { api, ApiError } from "~/api";
import { useCurrentOrganizationId } from "./selectors";

/** A member's preferences in one organization, as a grid's `ColumnPreferenceStore` reads and writes them. */
export interface MemberPreferences {
  /** The organization they belong to. */
  scope: string | null;
  /** The value saved under `key`, or null when there is none (404). */
  read: (key: string, signal: AbortSignal) => Promise<unknown>;
  write: (key: string, value: unknown) => Promise<unknown>;
}

const preferencePath = (key: string) => `/api/preferences/${encodeURIComponent(key)}`;

/**
 * The signed-in member's preferences in the current organization (GET/PUT /api/preferences/:key).
 * Silent: a preference that cannot be read or saved is never worth an error toast.
 */
export function useMemberPreferences(): MemberPreferences {
  const organizationId = useCurrentOrganizationId();
  return useMemo(
    () => ({
      scope: organizationId,
      read: async (key, signal) => {
        try {
          const answer = await api.get<{ value?: unknown } | null>(preferencePath(key), { signal, silent: true });
          return answer && typeof answer === "object" && "value" in answer ? answer.value : answer;
        } catch (error) {
          if (error instanceof ApiError && error.status === 404) return null;
          throw error;
        }
      },
      write: (key, value) => api.put(preferencePath(key), { value }, { silent: true }),
    }),
    [organizationId],
  );
}
