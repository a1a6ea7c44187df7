import {
  CellStyleModule,
  ClientSideRowModelApiModule,
  ClientSideRowModelModule,
  ColumnApiModule,
  InfiniteRowModelModule,
  ModuleRegistry,
  RowApiModule,
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
    // Transactions and walking the rows.
    ClientSideRowModelApiModule,
    // The historical blotter's server-side paging and the live blotter's rows from its worker (decision 0062).
    InfiniteRowModelModule,
    // Drawing rows again (StreamingGrid's text selection): without it the call only logs AG Grid's
    // error #200 in production.
    RowApiModule,
    ColumnApiModule,
    CellStyleModule,
    RowStyleModule,
    ScrollApiModule,
    TooltipModule,
    ...(import.meta.env.DEV ? [ValidationModule] : []),
  ]);
}
