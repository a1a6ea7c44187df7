import { api } from "~/api";
import type { Overview } from "@core/schemas/overview";
import type { InboxPage } from "@core/schemas/notifications";

export type { Overview, OverviewPlatform, OverviewPoint } from "@core/schemas/overview";

/** How often the overview's figures are read again while the page is in view (TanStack Query pauses it in a hidden tab). */
export const OVERVIEW_REFRESH_MS = 5_000;
export const RECENT_INBOX_ITEMS = 5;

/** GET /api/overview (docs/overview.md) and the newest inbox items, for `/`. */
export const overviewApi = {
  get: (signal?: AbortSignal) => api.get<Overview>("/api/overview", { signal }),
  recentInbox: (signal?: AbortSignal) => api.get<InboxPage>(`/api/inbox?limit=${RECENT_INBOX_ITEMS}`, { signal }),
};

export const overviewQueryKey = (organizationId: string | null) => ["overview", organizationId] as const;
/** Under the inbox's own key, so marking items read on /inbox refreshes this list too. */
export const recentInboxQueryKey = (organizationId: string | null) => ["inbox", organizationId, "recent"] as const;
