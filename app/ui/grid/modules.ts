import {
  CellStyleModule,
  ClientSideRowModelApiModule,
  ClientSideRowModelModule,
  ColumnApiModule,
  ExternalFilterModule,
  InfiniteRowModelModule,
  ModuleRegistry,
  RenderApiModule,
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
    // The Quotes Monitor: its filters (platform, symbol mask, only problems) and the cells it
    // refreshes every second (time without ticks, prices' direction colour).
    ExternalFilterModule,
    RenderApiModule,
    CellStyleModule,
    RowStyleModule,
    ScrollApiModule,
    TooltipModule,
    ...(import.meta.env.DEV ? [ValidationModule] : []),
  ]);
}
