import type { CellKeyDownEvent, ColDef, GridApi, GridReadyEvent, RowClickedEvent } from "ag-grid-community";
import { AgGridReact, type AgGridReactProps } from "ag-grid-react";
import { createContext, useContext, useMemo, useRef, type ReactNode } from "react";
import { cn } from "../cn";
import { columnIdOf, layoutSavers, withSavedColumns } from "./columnState";
import { GridSkeleton } from "./GridSkeleton";
import { registerGridModules } from "./modules";
import { gridTheme } from "./theme";
import { useColumnPreference } from "./columnPreference";
import { useHydrated } from "../useHydrated";

registerGridModules();

export interface DataGridProps<T> extends Omit<AgGridReactProps<T>, "theme" | "onGridReady" | "columnDefs" | "onRowClicked" | "onCellKeyDown"> {
  /** The table's accessible name (what a screen reader announces on entering it). */
  label: string;
  columnDefs: ColDef<T>[];
  /** Preference key under which this member's column order, widths, visibility and sort are kept (in the store a `ColumnPreferenceProvider` above gives). */
  stateKey?: string;
  /** A row was chosen: clicked, or Enter on one of its cells. */
  onRowOpen?: (row: T) => void;
  onReady?: (api: GridApi<T>) => void;
  /** Shown inside the grid when there is no row. */
  emptyText?: ReactNode;
  /** Size the wrapper (the grid fills it), e.g. "h-[36rem]". */
  className?: string;
  /** A sort that wins over the saved one when the grid starts (a sort given in the URL); `null`: none given. */
  initialSort?: { colId: string; sort: "asc" | "desc" } | null;
  /** The member sorted (the first sorted column, or null): for a page that keeps its sort in the URL. */
  onSortChange?: (sort: { colId: string; sort: "asc" | "desc" } | null) => void;
}

/** The definitions with one column sorted first and no other (a URL's sort over the saved one). */
function withInitialSort<T>(defs: ColDef<T>[], sort: { colId: string; sort: "asc" | "desc" } | null): ColDef<T>[] {
  if (!sort) return defs;
  return defs.map((def) =>
    columnIdOf(def) === sort.colId
      ? { ...def, sort: undefined, sortIndex: undefined, initialSort: sort.sort, initialSortIndex: 0 }
      : { ...def, sort: undefined, sortIndex: undefined, initialSort: undefined, initialSortIndex: undefined },
  );
}

/**
 * The grid's current empty text. AG Grid reads `noRowsOverlayComponent` once, when it starts, so a
 * text that changes later ("Loading…", then "No copies") reaches the overlay through this context:
 * the overlay is rendered inside AgGridReact's tree and follows it.
 */
const EmptyText = createContext<ReactNode>(null);
function NoRowsOverlay() {
  return <div className="px-4 text-sm text-muted">{useContext(EmptyText)}</div>;
}

/** What every column of every table starts from. */
export const DEFAULT_COL_DEF: ColDef = { sortable: true, resizable: true, minWidth: 72, suppressHeaderMenuButton: true };

/**
 * The one table of Toolbox: AG Grid Community on our tokens (light and dark), keyboard
 * navigation and ARIA from AG Grid, rendered only in the browser (a skeleton before), with the
 * member's column layout restored and saved when `stateKey` is given (in the store of the `ColumnPreferenceProvider` above).
 */
export function DataGrid<T>({
  label,
  columnDefs,
  stateKey,
  onRowOpen,
  onReady,
  emptyText,
  className,
  defaultColDef,
  initialSort,
  onSortChange,
  ...props
}: DataGridProps<T>) {
  const hydrated = useHydrated();
  const preference = useColumnPreference(stateKey);
  const wrapper = useRef<HTMLDivElement>(null);
  // Folded in once, when the saved layout is known: later re-renders must not reset the member's changes.
  const columns = useMemo(
    () => withInitialSort(preference.ready ? withSavedColumns(columnDefs, preference.saved) : columnDefs, initialSort ?? null),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `saved` only matters before the grid exists
    [columnDefs, preference.ready],
  );
  const mergedDefaultColDef = useMemo(() => ({ ...DEFAULT_COL_DEF, ...defaultColDef }) as ColDef<T>, [defaultColDef]);

  if (!hydrated || !preference.ready) return <GridSkeleton label={label} className={className} />;

  const savers: Partial<AgGridReactProps<T>> = stateKey ? layoutSavers(preference.save) : {};
  if (onSortChange) {
    const save = savers.onSortChanged;
    savers.onSortChanged = (event) => {
      save?.(event);
      const first = event.api
        .getColumnState()
        .filter((c) => c.sort === "asc" || c.sort === "desc")
        .sort((a, b) => (a.sortIndex ?? 0) - (b.sortIndex ?? 0))[0];
      onSortChange(first ? { colId: first.colId, sort: first.sort as "asc" | "desc" } : null);
    };
  }

  return (
    <div ref={wrapper} className={cn("h-[32rem] w-full", className)} role="region" aria-label={label}>
      <EmptyText.Provider value={emptyText}>
        <AgGridReact<T>
          theme={gridTheme}
          loadThemeGoogleFonts={false}
          columnDefs={columns}
          defaultColDef={mergedDefaultColDef}
          // Dealers copy logins and amounts; DOM order keeps screen readers in step with what is shown.
          enableCellTextSelection
          ensureDomOrder
          suppressDragLeaveHidesColumns
          noRowsOverlayComponent={emptyText !== undefined ? NoRowsOverlay : undefined}
          rowClass={onRowOpen ? "cursor-pointer" : undefined}
          {...props}
          onGridReady={(event: GridReadyEvent<T>) => {
            wrapper.current?.querySelector('[role="grid"], [role="treegrid"]')?.setAttribute("aria-label", label);
            onReady?.(event.api);
          }}
          onRowClicked={onRowOpen ? (event: RowClickedEvent<T>) => event.data && onRowOpen(event.data) : undefined}
          onCellKeyDown={
            onRowOpen
              ? (event: CellKeyDownEvent<T>) => {
                  if ((event.event as KeyboardEvent | undefined)?.key === "Enter" && event.data) onRowOpen(event.data);
                }
              : undefined
          }
          {...savers}
        />
      </EmptyText.Provider>
    </div>
  );
}
