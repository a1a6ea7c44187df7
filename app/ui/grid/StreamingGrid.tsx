import { createGrid, type ColDef, type GridApi, type GridOptions, type OverlayComponentUserParams } from "ag-grid-community";
import { useEffect, useRef, useState } from "react";
import { cn } from "../cn";
import { useHydrated } from "../useHydrated";
import { useColumnPreference } from "./columnPreference";
import { layoutSavers, withSavedColumns } from "./columnState";
import { DEFAULT_COL_DEF } from "./DataGrid";
import { GridSkeleton } from "./GridSkeleton";
import { registerGridModules } from "./modules";
import { gridTheme } from "./theme";

registerGridModules();

export interface StreamingGridProps<T> {
  /** The table's accessible name. */
  label: string;
  columnDefs: ColDef<T>[];
  /** Preference key for the member's column layout, as DataGrid's. */
  stateKey?: string;
  /** Grid options read once, when the grid is made (row ids, sorting, row buffer…). */
  options: GridOptions<T>;
  /** Cell text can be selected (the rows in view are redrawn when this changes, below). */
  selectableText?: boolean;
  onReady?: (api: GridApi<T>) => void;
  /** Shown inside the grid when there is no row (plain text). */
  emptyText: string;
  className?: string;
}

/**
 * DataGrid for rows that stream in many times a second (the Trades Blotter): the same AG Grid,
 * theme, column defaults, keyboard navigation and saved column layout, but drawn by AG Grid's own
 * DOM code (`createGrid`) instead of ag-grid-react's React components. With the newest rows on
 * top, every transaction replaces the rows in view; through React that was a render and commit
 * per row, 14% of the blotter's main thread at 5,000 updates/s (docs/benchmarks.md, 2026-11-23).
 * Column definitions and text selection follow the props; other options are set once.
 */
export function StreamingGrid<T>({ label, columnDefs, stateKey, options, selectableText = false, onReady, emptyText, className }: StreamingGridProps<T>) {
  const hydrated = useHydrated();
  const preference = useColumnPreference(stateKey);
  const host = useRef<HTMLDivElement>(null);
  const [api, setApi] = useState<GridApi<T> | null>(null);
  // Read when the grid is made (this effect runs before the one that makes it); later changes go
  // through the effects below.
  const initial = useRef({ columnDefs, options, selectableText, onReady, emptyText, label, preference });
  useEffect(() => {
    initial.current = { columnDefs, options, selectableText, onReady, emptyText, label, preference };
  });
  const ready = hydrated && preference.ready;

  useEffect(() => {
    const element = host.current;
    if (!ready || !element) return;
    const { columnDefs, options, selectableText, onReady, emptyText, label, preference } = initial.current;
    const grid = createGrid<T>(element, {
      theme: gridTheme,
      loadThemeGoogleFonts: false,
      columnDefs: withSavedColumns(columnDefs, preference.saved),
      ensureDomOrder: true,
      suppressDragLeaveHidesColumns: true,
      enableCellTextSelection: selectableText,
      // AG Grid's own overlay sets the text as text and announces it to screen readers.
      overlayComponentParams: { noRows: { overlayText: emptyText } } satisfies OverlayComponentUserParams,
      ...options,
      defaultColDef: { ...DEFAULT_COL_DEF, ...options.defaultColDef } as ColDef<T>,
      ...(stateKey ? layoutSavers((columns) => initial.current.preference.save(columns)) : {}),
    });
    element.querySelector('[role="grid"], [role="treegrid"]')?.setAttribute("aria-label", label);
    setApi(grid);
    onReady?.(grid);
    return () => {
      setApi(null);
      grid.destroy();
    };
  }, [ready, stateKey]);

  const made = useRef<GridApi<T> | null>(null);
  useEffect(() => {
    if (!api) return;
    // The grid was just made with these; only later changes are set.
    if (made.current !== api) {
      made.current = api;
      return;
    }
    api.setGridOption("columnDefs", withSavedColumns(columnDefs, initial.current.preference.saved));
  }, [api, columnDefs]);

  useEffect(() => {
    if (!api || api.getGridOption("enableCellTextSelection") === selectableText) return;
    api.setGridOption("enableCellTextSelection", selectableText);
    // AG Grid only toggles a CSS class here; a cell gets (or loses) the wrapper text selection uses
    // when it is drawn, so the rows in view are drawn again (a few dozen cells, once per toggle).
    api.redrawRows();
  }, [api, selectableText]);

  if (!ready) return <GridSkeleton label={label} className={className} />;
  // The grid's box is contained (its size set from outside, its layout and paint its own), so the
  // browser lays out a refresh's rows from there instead of from the page's root through every
  // grid and flex box around it: the blotter's layouts took 11–22 ms where the bare grid page's
  // took 5–7 (docs/benchmarks.md, 2026-11-24). On the outer box it would not do: a grid or flex
  // item is never where Chromium starts a layout.
  return (
    <div className={cn("h-[32rem] w-full", className)} role="region" aria-label={label}>
      <div ref={host} className="h-full w-full [contain:strict]" />
    </div>
  );
}
