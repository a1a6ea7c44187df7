import type { ColDef, ColumnState, GridApi } from "ag-grid-community";

/**
 * What a member's table remembers (saved under a preference key): column order, width,
 * visibility, pinning and sort. Versioned, so a later shape can ignore an old one.
 */
export interface SavedColumns {
  version: 1;
  columns: SavedColumn[];
}

export interface SavedColumn {
  colId: string;
  width?: number;
  hide?: boolean;
  pinned?: "left" | "right" | null;
  sort?: "asc" | "desc" | null;
  sortIndex?: number | null;
}

export function columnIdOf(def: ColDef): string {
  const id = def.colId ?? def.field;
  if (!id) throw new Error(`Column "${def.headerName ?? "?"}" needs a colId or a field`);
  return String(id);
}

/** The grid's state in the saved shape (only what we restore; AG Grid's extras dropped). */
export function toSavedColumns(state: readonly ColumnState[]): SavedColumns {
  return {
    version: 1,
    columns: state.map((c) => ({
      colId: c.colId,
      ...(typeof c.width === "number" ? { width: Math.round(c.width) } : {}),
      hide: !!c.hide,
      pinned: c.pinned === "left" || c.pinned === "right" ? c.pinned : null,
      sort: c.sort === "asc" || c.sort === "desc" ? c.sort : null,
      sortIndex: typeof c.sortIndex === "number" ? c.sortIndex : null,
    })),
  };
}

/** A stored value read back defensively: anything malformed is ignored, not trusted. */
export function readSavedColumns(value: unknown): SavedColumns | null {
  if (!value || typeof value !== "object") return null;
  const { version, columns } = value as { version?: unknown; columns?: unknown };
  if (version !== 1 || !Array.isArray(columns)) return null;
  const valid = columns.filter(
    (c): c is SavedColumn =>
      !!c &&
      typeof c === "object" &&
      typeof (c as SavedColumn).colId === "string" &&
      ((c as SavedColumn).width === undefined || (typeof (c as SavedColumn).width === "number" && (c as SavedColumn).width! > 0)),
  );
  return { version: 1, columns: valid };
}

/**
 * The column definitions with a saved state folded in as `initial*` values, in the saved order
 * (columns added since come last). Applying it before the grid exists means the first request
 * already carries the member's sort, and nothing jumps after the first paint.
 */
export function withSavedColumns<T>(defs: readonly ColDef<T>[], saved: SavedColumns | null): ColDef<T>[] {
  if (!saved) return [...defs];
  const byId = new Map(saved.columns.map((c, index) => [c.colId, { ...c, index }]));
  const merged = defs.map((def) => {
    const s = byId.get(columnIdOf(def));
    if (!s) return def;
    return {
      ...def,
      ...(s.width !== undefined && def.resizable !== false ? { initialWidth: s.width, width: undefined, flex: undefined, initialFlex: undefined } : {}),
      ...(s.hide !== undefined && !def.lockVisible ? { initialHide: s.hide, hide: undefined } : {}),
      ...(s.pinned !== undefined ? { initialPinned: s.pinned ?? undefined, pinned: undefined } : {}),
      ...(s.sort !== undefined && def.sortable !== false
        ? { initialSort: s.sort ?? undefined, initialSortIndex: s.sortIndex ?? undefined, sort: undefined, sortIndex: undefined }
        : {}),
    } satisfies ColDef<T>;
  });
  const order = (def: ColDef<T>) => byId.get(columnIdOf(def))?.index ?? Number.MAX_SAFE_INTEGER;
  return merged
    .map((def, index) => ({ def, index }))
    .sort((a, b) => order(a.def) - order(b.def) || a.index - b.index)
    .map(({ def }) => def);
}

/** The state the definitions describe, for "Reset columns". */
export function defaultColumnState(defs: readonly ColDef[]): ColumnState[] {
  return defs.map((def): ColumnState => ({
    colId: columnIdOf(def),
    width: def.width ?? def.initialWidth,
    flex: def.flex ?? def.initialFlex ?? null,
    hide: def.hide ?? def.initialHide ?? false,
    pinned: def.pinned ?? def.initialPinned ?? null,
    sort: (def.sort ?? def.initialSort ?? null) as ColumnState["sort"],
    sortIndex: def.sortIndex ?? def.initialSortIndex ?? null,
  }));
}

/**
 * The grid events after which a member's layout is saved (moved, resized, shown or hidden, pinned,
 * sorted), for AgGridReact props and `createGrid` options alike. A column move or resize is saved
 * once it ends; the grid's own changes (starting up, fitting flex columns) are not saved.
 */
export function layoutSavers(save: (columns: SavedColumns) => void) {
  const saveLayout = (event: { source: string; api: GridApi }) => {
    if (event.source === "gridInitializing" || event.source === "flex") return;
    save(toSavedColumns(event.api.getColumnState()));
  };
  return {
    onColumnMoved: (event: { source: string; api: GridApi; finished: boolean }) => event.finished && saveLayout(event),
    onColumnResized: (event: { source: string; api: GridApi; finished: boolean }) => event.finished && saveLayout(event),
    onColumnVisible: saveLayout,
    onColumnPinned: saveLayout,
    onSortChanged: saveLayout,
  };
}
