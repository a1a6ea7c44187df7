import {
  CellStyleModule,
  ClientSideRowModelApiModule,
  ClientSideRowModelModule,
  HighlightChangesModule,
  ColumnApiModule,
  InfiniteRowModelModule,
  ModuleRegistry,
  RowStyleModule,
  ScrollApiModule,
  TooltipModule,
  ValidationModule,
} from "ag-grid-community";

let registered = false;

/**
 * AG Grid Community ships as modules; registering only those our tables use keeps the bundle
 * small (sorting, resizing, moving columns and keyboard navigation are in the core). In
 * development the validation module names any feature used without its module.
 */
export function registerGridModules() {
  if (registered) return;
  registered = true;
  ModuleRegistry.registerModules([
    ClientSideRowModelModule,
    // Transactions and walking the rows (the blotter's batches and its export), and flashing changed rows.
    ClientSideRowModelApiModule,
    HighlightChangesModule,
    InfiniteRowModelModule,
    ColumnApiModule,
    CellStyleModule,
    RowStyleModule,
    ScrollApiModule,
    TooltipModule,
    ...(import.meta.env.DEV ? [ValidationModule] : []),
  ]);
}
