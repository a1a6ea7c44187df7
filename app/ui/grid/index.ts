/** The one table component (AG Grid Community) and its parts: columns, toolbar, status, CSV. */
export { DataGrid, type DataGridProps } from "./DataGrid";
export { StreamingGrid, type StreamingGridProps } from "./StreamingGrid";
export { ColumnsMenu } from "./ColumnsMenu";
export { GridToolbar } from "./GridToolbar";
export { GridStatus } from "./GridStatus";
export { GridSkeleton } from "./GridSkeleton";
export { textColumn, moneyColumn, percentColumn, integerColumn, dateTimeColumn } from "./columns";
export { formatMoney, formatPercent, formatInteger, formatDateTime, toDate } from "./format";
export { buildCsv, csvCell, saveCsv, csvFileName, type CsvColumn } from "./csv";
export { toSavedColumns, readSavedColumns, withSavedColumns, defaultColumnState, type SavedColumns } from "./columnState";
export { ColumnPreferenceProvider, type ColumnPreferenceStore } from "./columnPreference";
