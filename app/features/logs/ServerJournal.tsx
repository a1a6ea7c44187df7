import { useQuery } from "@tanstack/react-query";
import type { ColDef } from "ag-grid-community";
import { Pause, Play } from "lucide-react";
import { useEffect, useMemo, useRef, useState, type FormEvent } from "react";
import { useSearchParams } from "react-router";
import { apiHeaders } from "~/api/headers";
import { openLiveStream, type StreamStatus } from "~/api/liveStream";
import { useCurrentOrganizationId, useTradePlatforms } from "~/profile";
import { Button } from "~/ui/Button";
import { EmptyState } from "~/ui/EmptyState";
import { Field } from "~/ui/Field";
import { Input } from "~/ui/Input";
import { DateTimeInput } from "~/ui/DateInput";
import { ApiError } from "~/api";
import { Select } from "~/ui/Select";
import { DataGrid, dateTimeColumn, textColumn } from "~/ui/grid";
import { JOURNAL_LEVELS } from "@core/trading/journal";
import { ScrollText } from "lucide-react";
import { logsApi, logsKey, queryOf, type JournalEntryView } from "./logsApi";

/** The range fields (DateTimeInput) hand over ISO UTC, typed in the member's format and zone. */
const isoOf = (value: string) => (value && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : "");

/** At most this many lines stay in the grid while tailing. */
const MAX_ROWS = 2000;
const ALL = "all";

const COLUMNS: ColDef<JournalEntryView>[] = [
  dateTimeColumn<JournalEntryView>({ field: "time", headerName: "Time", sortable: false }),
  textColumn<JournalEntryView>({ field: "level", headerName: "Level", sortable: false, width: 110 }),
  textColumn<JournalEntryView>({ field: "login", headerName: "Login", sortable: false, width: 110 }),
  textColumn<JournalEntryView>({ field: "sourceIp", headerName: "Source IP", sortable: false, width: 140 }),
  textColumn<JournalEntryView>({ field: "message", headerName: "Message", sortable: false, flex: 1 }),
];

const STATUS_TEXT: Record<StreamStatus, string> = {
  connecting: "Connecting to the live tail…",
  open: "Live: new entries appear as they are written.",
  waiting: "The live tail was interrupted; reconnecting…",
  stopped: "Paused.",
};

/** One platform's server journal: the last hour (or a chosen window, From/To), filtered by level, text and login, with a live tail. */
export function ServerJournal() {
  const organizationId = useCurrentOrganizationId();
  const platforms = useTradePlatforms();
  const [params, setParams] = useSearchParams();
  const platformId = params.get("platform") ?? platforms[0]?.id ?? "";
  const level = params.get("level") ?? "";
  const text = params.get("text") ?? "";
  const login = params.get("login") ?? "";
  const from = params.get("from") ?? "";
  const to = params.get("to") ?? "";
  const query = queryOf({ platformId, levels: level, text, login, from, to });
  const list = useQuery({
    queryKey: logsKey(organizationId, "journal", query),
    queryFn: ({ signal }) => logsApi.journal(query, signal),
    enabled: !!platformId,
  });
  // Entries the tail brought since the list was loaded (dropped when the list loads again).
  const [tailed, setLive] = useState<{ base: unknown; rows: JournalEntryView[] }>({ base: null, rows: [] });
  const [paused, setPaused] = useState(false);
  const [status, setStatus] = useState<StreamStatus>("connecting");
  const [problem, setProblem] = useState<string | null>(null);
  const newest = list.data?.items[0]?.time;
  const seen = useRef(new Set<string>());

  useEffect(() => {
    seen.current = new Set(list.data?.items.map((e) => e.id));
  }, [list.data]);

  useEffect(() => {
    // A window that ends (`to`) is history: no live tail.
    if (!platformId || paused || !list.data || to) return;
    const tail = queryOf({ platformId, levels: level, text, login, since: newest ?? new Date().toISOString() });
    return openLiveStream({
      url: `/api/logs/journal/live?${new URLSearchParams(tail)}`,
      headers: () => apiHeaders(),
      onStatus: (next) => setStatus(next),
      onMessage: (message) => {
        const data = JSON.parse(message.data) as unknown;
        if (message.event === "status") {
          const s = data as { connected: boolean; message?: string };
          setProblem(s.connected ? null : (s.message ?? "The journal cannot be read."));
          return;
        }
        if (message.event !== "entry") return;
        const entry = data as JournalEntryView;
        if (seen.current.has(entry.id)) return;
        seen.current.add(entry.id);
        const base = list.data;
        setLive((prev) => ({ base, rows: [entry, ...(prev.base === base ? prev.rows : [])].slice(0, MAX_ROWS) }));
      },
    });
  }, [platformId, level, text, login, to, paused, list.data, newest]);

  const rows = useMemo(() => [...(tailed.base === list.data ? tailed.rows : []), ...(list.data?.items ?? [])], [tailed, list.data]);

  const update = (next: Record<string, string>) => {
    const merged = new URLSearchParams(params);
    for (const [k, v] of Object.entries(next)) {
      if (v) merged.set(k, v);
      else merged.delete(k);
    }
    setParams(merged, { replace: true });
  };
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const value = (name: string) => {
      const v = form.get(name);
      return typeof v === "string" ? v.trim() : "";
    };
    update({ text: value("text"), login: value("login"), from: isoOf(value("from")), to: isoOf(value("to")) });
  };

  if (!platforms.length) {
    return <EmptyState icon={ScrollText} title="No trade platform yet" description="Connect a platform to read its server journal here." />;
  }
  return (
    <div className="grid gap-4">
      <form onSubmit={submit} className="grid items-end gap-3 sm:grid-cols-2 lg:grid-cols-4" aria-label="Server journal filters" key={params.toString()}>
        <Field label="Platform">
          <Select options={platforms.map((p) => ({ value: p.id, label: p.name }))} value={platformId} onValueChange={(v) => update({ platform: v })} />
        </Field>
        <Field label="Level">
          <Select
            options={[{ value: ALL, label: "All levels" }, ...JOURNAL_LEVELS.map((l) => ({ value: l, label: l }))]}
            value={level || ALL}
            onValueChange={(v) => update({ level: v === ALL ? "" : v })}
          />
        </Field>
        <Field label="Text">
          <Input type="search" name="text" defaultValue={text} placeholder="In the message" />
        </Field>
        <Field label="Login">
          <Input name="login" defaultValue={login} inputMode="numeric" placeholder="Account login" />
        </Field>
        <Field label="From">
          <DateTimeInput name="from" defaultValue={from} />
        </Field>
        <Field label="To">
          <DateTimeInput name="to" defaultValue={to} />
        </Field>
        {/* Two buttons need two columns: in one, "Pause live tail" ran past the page's edge at 1440 px. */}
        <div className="flex flex-wrap gap-2 sm:col-span-2">
          <Button type="submit">Apply</Button>
          <Button type="button" variant="secondary" onClick={() => setPaused((p) => !p)} aria-pressed={paused}>
            {paused ? <Play aria-hidden /> : <Pause aria-hidden />}
            {paused ? "Resume live tail" : "Pause live tail"}
          </Button>
        </div>
      </form>
      <p className="text-sm text-muted" role="status" aria-live="polite">
        {list.isError
          ? list.error instanceof ApiError && list.error.status
            ? list.error.message
            : "The journal could not be read."
          : (problem ?? (to ? "The chosen window (no live tail)." : paused ? STATUS_TEXT.stopped : STATUS_TEXT[status]))}
        {list.data?.truncated
          ? ` Only the newest entries ${from || to ? "of the chosen window" : "of the last hour"} are shown; narrow the filters to see more.`
          : ""}
      </p>
      <DataGrid<JournalEntryView>
        label="Server journal"
        columnDefs={COLUMNS}
        rowData={list.isError ? [] : rows}
        getRowId={(p) => p.data.id}
        emptyText={list.isPending ? "Loading…" : from || to ? "No journal entries in the chosen window match." : "No journal entries in the last hour match."}
        className="h-[36rem]"
      />
    </div>
  );
}
