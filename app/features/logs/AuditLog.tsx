import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { ColDef } from "ag-grid-community";
import { ChevronLeft, ChevronRight, Download } from "lucide-react";
import { useMemo, useState, type FormEvent } from "react";
import { useSearchParams } from "react-router";
import { ApiError } from "~/api";
import { download } from "~/api/download";
import { useCurrentOrganizationId } from "~/profile";
import { Button } from "~/ui/Button";
import { DialogContent, DialogRoot } from "~/ui/Dialog";
import { DescriptionList } from "~/ui/DescriptionList";
import { DateTimeInput } from "~/ui/DateInput";
import { Field } from "~/ui/Field";
import { Input } from "~/ui/Input";
import { DataGrid, dateTimeColumn, formatDateTime, textColumn } from "~/ui/grid";
import { useFormat } from "~/ui/format";
import { DATE_PRESETS, presetRange, type DatePreset } from "@core/datePresets";
import { AuditDiff } from "./AuditDiff";
import { auditRangeTooLong } from "@core/schemas/logs";
import { logsApi, logsKey, queryOf, type AuditEvent } from "./logsApi";

export const AUDIT_PAGE_SIZE = 100;
const FILTERS = ["from", "to", "actor", "action", "target", "q"] as const;
type FilterName = (typeof FILTERS)[number];

/** The range fields (DateTimeInput) hand over ISO UTC, typed in the member's format and zone; the URL and the API use it as is. */
const fromLocalInput = (value: string) => (value && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : "");

const COLUMNS: ColDef<AuditEvent>[] = [
  dateTimeColumn<AuditEvent>({ field: "at", headerName: "Time", sortable: true }),
  textColumn<AuditEvent>({ field: "actorName", headerName: "Actor", sortable: false, valueGetter: (p) => p.data?.actorName ?? p.data?.actorSub, width: 180 }),
  textColumn<AuditEvent>({ field: "action", headerName: "Action", sortable: false, width: 220 }),
  textColumn<AuditEvent>({ field: "targetType", headerName: "Target type", sortable: false, width: 140 }),
  // The target's name when it still exists ("Demo MT5", "Demo MT5 · 10007", a member's name), else its id.
  textColumn<AuditEvent>({ field: "targetId", headerName: "Target", sortable: false, flex: 1, valueGetter: (p) => p.data?.targetName ?? p.data?.targetId }),
  textColumn<AuditEvent>({ field: "sourceIp", headerName: "Source IP", sortable: false, width: 140 }),
];

/** A range the API would refuse, in words for the To field; null when it is fine (either end may be open). */
export function auditRangeProblem(from: string, to: string): string | null {
  if (from && to && Date.parse(from) > Date.parse(to)) return "The end is before the start: choose a later To or an earlier From.";
  return auditRangeTooLong(from || undefined, to || undefined);
}

/** A preset's range as of now (on a click, never during render). */
const presetNow = (id: DatePreset, timeZone: string) => presetRange(id, Date.now(), timeZone);

/** The audit log: filters in the URL, server-side pages, the before/after diff in a side panel, CSV export. */
export function AuditLog() {
  const organizationId = useCurrentOrganizationId();
  const [params, setParams] = useSearchParams();
  const filters = Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? ""])) as Record<FilterName, string>;
  const sort: "asc" | "desc" = params.get("sort") === "asc" ? "asc" : "desc";
  const offset = Math.max(0, Number(params.get("offset")) || 0);
  const query = queryOf({ ...filters, sort, offset, limit: AUDIT_PAGE_SIZE });
  const page = useQuery({
    queryKey: logsKey(organizationId, "audit", query),
    queryFn: ({ signal }) => logsApi.audit(query, signal),
    placeholderData: keepPreviousData,
  });
  const [open, setOpen] = useState<AuditEvent | null>(null);
  const format = useFormat();
  const [exporting, setExporting] = useState(false);
  // The range as last submitted, when refused in the form (nothing is asked then); else the URL's own.
  const [rangeError, setRangeError] = useState<string | null>(null);
  const shownRangeError = rangeError ?? auditRangeProblem(filters.from, filters.to);

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
    const text = (name: string) => {
      const value = form.get(name);
      return typeof value === "string" ? value.trim() : "";
    };
    const range = { from: fromLocalInput(text("from")), to: fromLocalInput(text("to")) };
    // Checked here, as the blotter does: a field's message, not a refused request and an empty page.
    const problem = auditRangeProblem(range.from, range.to);
    setRangeError(problem);
    if (problem) return;
    update({ actor: text("actor"), action: text("action"), target: text("target"), q: text("q"), ...range, offset: "" });
  };

  // A refused query (a range from after to) shows no rows: never the last result under its message.
  const failed = page.isError;
  const total = failed ? 0 : (page.data?.total ?? 0);
  // Past 10,000 matches beyond this page the API stops counting: the total is then "more than".
  const capped = page.data?.totalCapped ?? false;
  const rows = failed ? [] : page.data?.items;
  const preset = (id: DatePreset) => {
    setRangeError(null);
    update({ ...presetNow(id, format.timeZone), offset: "" });
  };
  const columns = useMemo(() => COLUMNS.map((c) => (c.field === "at" ? { ...c, sort } : c)), [sort]);

  async function exportCsv() {
    setExporting(true);
    try {
      await download(`/api/logs/audit.csv?${new URLSearchParams(queryOf({ ...filters, sort }))}`);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    } finally {
      setExporting(false);
    }
  }

  return (
    <div className="grid gap-4">
      <form
        onSubmit={submit}
        className="grid items-end gap-3 sm:grid-cols-2 lg:grid-cols-4 xl:grid-cols-6"
        aria-label="Audit log filters"
        key={params.toString()}
      >
        <Field label="From">
          <DateTimeInput name="from" defaultValue={filters.from} />
        </Field>
        <Field label="To" error={shownRangeError ?? undefined}>
          <DateTimeInput name="to" defaultValue={filters.to} />
        </Field>
        <Field label="Actor">
          <Input name="actor" defaultValue={filters.actor} placeholder="Name or e-mail" />
        </Field>
        <Field label="Action">
          <Input name="action" defaultValue={filters.action} placeholder="e.g. tradePlatform" />
        </Field>
        <Field label="Target">
          <Input name="target" defaultValue={filters.target} placeholder="Type or id" />
        </Field>
        <Field label="Text">
          <Input type="search" name="q" defaultValue={filters.q} placeholder="Anywhere, also in before/after" />
        </Field>
        <div className="flex flex-wrap gap-2 sm:col-span-2 lg:col-span-4 xl:col-span-6" role="group" aria-label="Date presets">
          {DATE_PRESETS.map((p) => (
            <Button key={p.id} type="button" size="sm" variant="secondary" onClick={() => preset(p.id)}>
              {p.label}
            </Button>
          ))}
        </div>
        <div className="flex gap-2">
          <Button type="submit">Apply</Button>
          <Button type="button" variant="ghost" onClick={() => setParams(new URLSearchParams(), { replace: true })}>
            Clear
          </Button>
        </div>
      </form>

      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-muted" role="status" aria-live="polite">
          {failed
            ? page.error instanceof ApiError && page.error.status
              ? page.error.message
              : "The audit log could not be read."
            : page.isPending
              ? "Loading…"
              : total === 0
                ? "No records match."
                : `${offset + 1}–${Math.min(offset + AUDIT_PAGE_SIZE, total)} of ${capped ? "more than " : ""}${total.toLocaleString("en")}`}
        </p>
        <div className="flex items-center gap-2">
          <Button variant="ghost" size="sm" disabled={offset === 0} onClick={() => update({ offset: String(Math.max(0, offset - AUDIT_PAGE_SIZE)) || "" })}>
            <ChevronLeft aria-hidden /> Previous
          </Button>
          <Button variant="ghost" size="sm" disabled={offset + AUDIT_PAGE_SIZE >= total} onClick={() => update({ offset: String(offset + AUDIT_PAGE_SIZE) })}>
            Next <ChevronRight aria-hidden />
          </Button>
          <Button variant="secondary" size="sm" onClick={exportCsv} loading={exporting} disabled={total === 0}>
            {exporting ? null : <Download aria-hidden />}
            Export CSV
          </Button>
        </div>
      </div>

      <DataGrid<AuditEvent>
        label="Audit log"
        columnDefs={columns}
        rowData={rows}
        getRowId={(p) => p.data.id}
        onRowOpen={setOpen}
        onSortChanged={(event) => {
          const at = event.api.getColumnState().find((c) => c.colId === "at");
          update({ sort: at?.sort === "asc" ? "asc" : "", offset: "" });
        }}
        emptyText="No audit records match these filters."
        className="h-[36rem]"
      />

      <DialogRoot open={open !== null} onOpenChange={(next) => !next && setOpen(null)}>
        {open ? (
          <DialogContent
            title={open.action}
            description={`${formatDateTime(open.at)} · ${open.actorName ?? open.actorSub}`}
            className="top-0 right-0 left-auto h-dvh max-h-dvh max-w-xl translate-x-0 translate-y-0 rounded-none sm:rounded-l-lg"
          >
            <DescriptionList
              items={[
                { term: "Actor", value: `${open.actorName ?? "—"} (${open.actorSub})` },
                { term: "Target", value: `${open.targetType} ${open.targetName ? `${open.targetName} (${open.targetId})` : open.targetId}` },
                { term: "Source IP", value: open.sourceIp ?? "—" },
              ]}
            />
            <section aria-label="Before and after" className="grid gap-2">
              <h2 className="text-sm font-semibold">Before and after</h2>
              <AuditDiff before={open.before} after={open.after} />
            </section>
          </DialogContent>
        ) : null}
      </DialogRoot>
    </div>
  );
}
