import { api } from "~/api";
import type { Channel, CreateChannel, Delivery, NotificationSettings, UpdateChannel } from "@core/schemas/notifications";

export type { Channel, Delivery, NotificationSettings, NotificationRule } from "@core/schemas/notifications";

const channel = (id: string) => `/api/notifications/channels/${encodeURIComponent(id)}`;

/** The organization's notification settings and channels; forms show refusals inline (silent). */
export const notificationsApi = {
  settings: (signal?: AbortSignal) => api.get<NotificationSettings>("/api/notifications/settings", { signal }),
  saveSettings: (body: NotificationSettings) => api.put<NotificationSettings>("/api/notifications/settings", body, { silent: true }),
  channels: (signal?: AbortSignal) => api.get<Channel[]>("/api/notifications/channels", { signal }),
  createChannel: (body: CreateChannel) => api.post<Channel>("/api/notifications/channels", body, { silent: true }),
  updateChannel: (id: string, body: UpdateChannel) => api.patch<Channel>(channel(id), body),
  deleteChannel: (id: string) => api.del(channel(id)),
  test: (id: string) => api.post<{ delivered: boolean; status: number | null; error: string | null }>(`${channel(id)}/test`),
  resendConfirmations: (id: string) => api.post<{ requested: number }>(`${channel(id)}/recipients/resend`),
  deliveries: (id: string, signal?: AbortSignal) => api.get<Delivery[]>(`${channel(id)}/deliveries`, { signal }),
};

export const notificationsKey = (organizationId: string | null, part: "settings" | "channels" | ["deliveries", string]) =>
  ["notifications", organizationId, part] as const;
