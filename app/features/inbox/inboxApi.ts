import { api } from "~/api";
import type { InboxPage, InboxQuery, Notification } from "@core/schemas/notifications";

export type { InboxPage, Notification } from "@core/schemas/notifications";

export type InboxFilters = Pick<InboxQuery, "status" | "severity" | "type">;

/** The signed-in member's inbox in the current organization (docs/notifications.md). */
export const inboxApi = {
  list: (filters: InboxFilters, before: string | undefined, signal?: AbortSignal) => {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries({ ...filters, before })) if (value) query.set(key, String(value));
    const text = query.toString();
    return api.get<InboxPage>(`/api/inbox${text ? `?${text}` : ""}`, { signal });
  },
  markRead: (id: string) => api.post<Notification>(`/api/inbox/${encodeURIComponent(id)}/read`),
  markAllRead: () => api.post<{ marked: number }>("/api/inbox/read-all"),
};

export const inboxQueryKey = (organizationId: string | null, filters?: InboxFilters) =>
  filters ? (["inbox", organizationId, filters] as const) : (["inbox", organizationId] as const);
