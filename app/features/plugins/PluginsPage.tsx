import type { ColDef, ICellRendererParams } from "ag-grid-community";
import { Puzzle } from "lucide-react";
import { useMemo, useState } from "react";
import { Link, useNavigate } from "react-router";
import type { PluginView } from "@core/schemas/plugins";
import { useAccess } from "~/profile";
import { Badge } from "~/ui/Badge";
import { Button } from "~/ui/Button";
import { EmptyState } from "~/ui/EmptyState";
import { DataGrid, textColumn } from "~/ui/grid";
import { Skeleton } from "~/ui/Skeleton";
import { pluginEditorPath } from "./editorPath";
import { PluginDialog } from "./PluginDialog";
import { usePlugins } from "./pluginsApi";

interface Row extends PluginView {
  editor: string | null;
}

/**
 * `…/settings/plugins`: the plugins the server runs (file, name, version, enabled, configurable,
 * state). A row opens its editor where Toolbox has one (Flexible Leverage), else its parameters;
 * "Parameters" opens them for any row. On Match-Trader, which has no plugins, the page says so.
 */
export function PluginsPage({ platformId, platformType }: { platformId: string; platformType: string | undefined }) {
  const plugins = usePlugins(platformId);
  const navigate = useNavigate();
  const canWrite = useAccess().hasModule("plugins", "write");
  const [open, setOpen] = useState<PluginView | null>(null);
  const rows = useMemo<Row[]>(
    () => (plugins.data?.plugins ?? []).map((p) => ({ ...p, editor: pluginEditorPath(platformType, platformId, p) })),
    [plugins.data, platformType, platformId],
  );
  const columns = useMemo<ColDef<Row>[]>(
    () => [
      textColumn({ field: "file", headerName: "File", width: 280 }),
      textColumn({ field: "name", headerName: "Name", width: 180 }),
      textColumn({ field: "version", headerName: "Version", width: 110 }),
      textColumn({
        field: "enabled",
        headerName: "Enabled",
        width: 110,
        cellRenderer: (p: ICellRendererParams<Row>) =>
          p.data ? <Badge tone={p.data.enabled ? "success" : "outline"}>{p.data.enabled ? "Yes" : "No"}</Badge> : null,
      }),
      textColumn({ field: "configurable", headerName: "Configurable", width: 130, valueFormatter: (p) => (p.value ? "Yes" : "No") }),
      textColumn({
        field: "state",
        headerName: "State",
        width: 120,
        cellRenderer: (p: ICellRendererParams<Row>) =>
          p.data ? <Badge tone={p.data.state === "running" ? "success" : "warning"}>{p.data.state === "running" ? "Running" : "Disabled"}</Badge> : null,
      }),
      {
        colId: "actions",
        headerName: "Actions",
        width: 220,
        sortable: false,
        cellRenderer: (p: ICellRendererParams<Row>) =>
          p.data ? (
            <span className="flex items-center gap-2">
              <Button
                variant="secondary"
                size="sm"
                onClick={(event) => {
                  event.stopPropagation();
                  setOpen(p.data ?? null);
                }}
              >
                Parameters
              </Button>
              {p.data.editor ? (
                <Link
                  to={p.data.editor}
                  className="text-sm font-medium text-primary underline-offset-4 hover:underline"
                  onClick={(event) => event.stopPropagation()}
                >
                  Open editor
                </Link>
              ) : null}
            </span>
          ) : null,
      },
    ],
    [],
  );

  if (plugins.isPending) return <Skeleton className="h-40" />;
  if (plugins.isError)
    return (
      <EmptyState
        icon={Puzzle}
        title="The plugins could not be read"
        description={plugins.error.message || "The trading server did not answer. Try again in a moment."}
      />
    );
  if (!plugins.data.supported) return <EmptyState icon={Puzzle} title="This platform has no server plugins" description={plugins.data.message ?? undefined} />;

  return (
    <div className="grid gap-4">
      <DataGrid<Row>
        label="Plugins"
        columnDefs={columns}
        rowData={rows}
        getRowId={(p) => p.data.id}
        onRowOpen={(row) => (row.editor ? void navigate(row.editor) : setOpen(row))}
        emptyText="The server runs no plugins."
        domLayout="autoHeight"
        className="h-auto"
      />
      {open ? <PluginDialog key={open.id} platformId={platformId} plugin={open} canWrite={canWrite} onClose={() => setOpen(null)} /> : null}
    </div>
  );
}
