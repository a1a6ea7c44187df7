import { api } from "~/api";
import type { AuditEvent, AuditPage, JournalEntryView, JournalPage, LogSettings } from "@core/schemas/logs";

export type { AuditEvent, AuditPage, JournalEntryView, JournalPage, LogSettings };

/** Query strings without the empty fields (an empty filter means none). */
export function queryOf(values: Record<string, string | number | undefined | null>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values)
      .filter(([, v]) => v !== undefined && v !== null && v !== "")
      .map(([k, v]) => [k, String(v)]),
  );
}

/** The /logs endpoints (module `logs` read; the retention setting: settings write). */
export const logsApi = {
  // Silent: a refused query's message is shown where the rows would be (AuditLog).
  audit: (query: Record<string, string>, signal?: AbortSignal) => api.get<AuditPage>("/api/logs/audit", { query, signal, silent: true }),
  journal: (query: Record<string, string>, signal?: AbortSignal) => api.get<JournalPage>("/api/logs/journal", { query, signal, silent: true }),
  settings: (signal?: AbortSignal) => api.get<LogSettings>("/api/logs/settings", { signal }),
  saveSettings: (body: LogSettings) => api.put<LogSettings>("/api/logs/settings", body, { silent: true }),
};

export const logsKey = (organizationId: string | null, ...rest: unknown[]) => ["logs", organizationId, ...rest] as const;
