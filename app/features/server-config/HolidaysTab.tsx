import type { ColDef, ICellRendererParams } from "ag-grid-community";
import { CalendarOff, Plus } from "lucide-react";
import { useMemo, useState } from "react";
import { holidayProblems, holidaysProblems, type Holiday } from "@core/trading/holiday";
import { Button } from "~/ui/Button";
import { DialogContent, DialogRoot } from "~/ui/Dialog";
import { Field } from "~/ui/Field";
import { Switch } from "~/ui/Switch";
import { EmptyState } from "~/ui/EmptyState";
import { FormAlert } from "~/ui/FormAlert";
import { DataGrid, GridToolbar } from "~/ui/grid";
import { Input } from "~/ui/Input";
import { Skeleton } from "~/ui/Skeleton";
import { useHolidays } from "./api";
import { stagedKey, useStaging } from "./store";

type Row = Holiday & { index: number };
const BLANK: Holiday = { date: "", from: 0, to: 0, symbols: "*", description: "", enabled: true };

/**
 * The server's holidays (MetaTrader keeps them as one list, by position): the list as staged is
 * shown and edited in place (add, change a cell, remove), checked with the platform's rules, and
 * staged as one change of the whole list against the version read.
 */
export function HolidaysTab({ platformId, canWrite }: { platformId: string; canWrite: boolean }) {
  const read = useHolidays(platformId);
  const staged = useStaging((s) => s.staged[platformId]?.[stagedKey("holidays", null)]);
  const stageHolidays = useStaging((s) => s.stageHolidays);
  const [search, setSearch] = useState("");
  const [open, setOpen] = useState<Row | null>(null);
  const list = useMemo(() => (staged?.kind === "holidays" ? staged.holidays : (read.data?.holidays ?? [])), [staged, read.data]);
  const problems = holidaysProblems(list);
  const stage = (next: Holiday[]) => {
    if (read.data?.version) stageHolidays(platformId, read.data.holidays, read.data.version, next);
  };
  const rows = useMemo<Row[]>(() => {
    const needle = search.trim().toLowerCase();
    return list.map((h, index) => ({ ...h, index })).filter((h) => needle === "" || `${h.date} ${h.symbols} ${h.description}`.toLowerCase().includes(needle));
  }, [list, search]);
  const columns = useMemo<ColDef<Row>[]>(
    () => [
      { field: "date", headerName: "Date (server time)", width: 150 },
      { field: "from", headerName: "Trades from (min)", width: 140 },
      { field: "to", headerName: "Trades to (min)", width: 130 },
      { field: "symbols", headerName: "Applies to", width: 180 },
      { field: "description", headerName: "Description", width: 220 },
      { field: "enabled", headerName: "Enabled", width: 100, valueFormatter: (p) => (p.value ? "Yes" : "No") },
      {
        colId: "remove",
        headerName: "",
        width: 110,
        sortable: false,
        cellRenderer: (p: ICellRendererParams<Row>) =>
          canWrite && p.data ? (
            <Button variant="ghost" size="sm" onClick={() => stage(list.filter((_, i) => i !== p.data?.index))}>
              Remove
            </Button>
          ) : null,
      },
    ],
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `stage` closes over the list, which is a dependency
    [canWrite, list],
  );

  if (read.isPending) return <Skeleton className="h-64" />;
  if (read.isError) return <EmptyState icon={CalendarOff} title="The holidays could not be read" description={read.error.message} />;
  if (!read.data.supported) return <EmptyState icon={CalendarOff} title="No holidays on this platform" description={read.data.message ?? undefined} />;
  return (
    <div className="grid gap-3">
      <GridToolbar
        label="Holiday tools"
        filters={<Input aria-label="Search holidays" placeholder="Search" value={search} onChange={(e) => setSearch(e.target.value)} className="w-64" />}
        actions={
          canWrite ? (
            <Button size="sm" variant="secondary" onClick={() => setOpen({ ...BLANK, date: new Date().toISOString().slice(0, 10), index: list.length })}>
              <Plus className="size-4" /> Add a holiday
            </Button>
          ) : null
        }
      />
      <DataGrid<Row>
        label="Holidays"
        stateKey="serverConfig.holidays"
        columnDefs={columns}
        rowData={rows}
        getRowId={(p) => String(p.data.index)}
        onRowOpen={(row) => canWrite && setOpen(row)}
        emptyText="The server has no holidays."
        className="h-[24rem]"
      />
      <FormAlert message={problems.length > 0 ? problems.join(" ") : null} />
      {open ? (
        <HolidayDialog
          holiday={open}
          onClose={() => setOpen(null)}
          onStage={(holiday) => {
            const { index } = open;
            stage(index >= list.length ? [...list, holiday] : list.map((h, i) => (i === index ? holiday : h)));
            setOpen(null);
          }}
        />
      ) : null}
    </div>
  );
}

/** One holiday's fields; the platform's rules for it checked as the dealer types. */
function HolidayDialog({ holiday, onClose, onStage }: { holiday: Holiday; onClose: () => void; onStage: (holiday: Holiday) => void }) {
  const [draft, setDraft] = useState({ ...holiday, from: String(holiday.from), to: String(holiday.to) });
  const value: Holiday = {
    date: draft.date,
    from: Number(draft.from),
    to: Number(draft.to),
    symbols: draft.symbols,
    description: draft.description,
    enabled: draft.enabled,
  };
  const problems = holidayProblems(value);
  const text = (key: "date" | "from" | "to" | "symbols" | "description", label: string) => (
    <Field label={label}>
      <Input value={draft[key]} onChange={(e) => setDraft((d) => ({ ...d, [key]: e.target.value }))} />
    </Field>
  );
  return (
    <DialogRoot open onOpenChange={(o) => !o && onClose()}>
      <DialogContent
        title="Holiday"
        description="In server time; a window of 0 to 0 shuts the market all day."
        footer={
          <>
            <Button variant="secondary" onClick={onClose}>
              Cancel
            </Button>
            <Button disabled={problems.length > 0} onClick={() => onStage(value)}>
              Stage
            </Button>
          </>
        }
      >
        {text("date", "Date (YYYY-MM-DD)")}
        {text("from", "Trades from (minutes)")}
        {text("to", "Trades to (minutes)")}
        {text("symbols", "Applies to (*, symbols or group masks)")}
        {text("description", "Description")}
        <Field label="Enabled">
          <Switch checked={draft.enabled} onCheckedChange={(enabled) => setDraft((d) => ({ ...d, enabled }))} />
        </Field>
        <FormAlert message={problems.length > 0 ? problems.join(" ") : null} />
      </DialogContent>
    </DialogRoot>
  );
}
