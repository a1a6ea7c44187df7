import type { ColDef, ICellRendererParams } from "ag-grid-community";
import { PlatformTypeBadge } from "~/features/trade-platforms";
import { dateTimeColumn, integerColumn, moneyColumn, percentColumn, textColumn, toDate, type CsvColumn } from "~/ui/grid";
import { AccountStateBadges, accountStateLabel, MarginStateBadge, marginStateLabel } from "../AccountBadges";
import type { AccountRow } from "../accountTypes";

type Cell = ICellRendererParams<AccountRow>;

/**
 * The /users columns (docs/requirements.md#r-fields), sortable by the API; ids are the API's sort fields.
 * In the order a dealer reads an account: who, which group, then the money (balance, equity, margin,
 * free margin, margin level) so those fit a 1440 px screen unscrolled; the rest follows.
 */
export const ACCOUNT_COLUMNS: ColDef<AccountRow>[] = [
  textColumn({ field: "login", headerName: "Login", width: 100, pinned: "left", lockVisible: true, cellClass: "font-mono tabular-nums" }),
  textColumn({ field: "name", headerName: "Name", width: 170 }),
  textColumn({ field: "group", headerName: "Group", width: 150 }),
  moneyColumn({ field: "balance", headerName: "Balance" }),
  moneyColumn({ field: "equity", headerName: "Equity" }),
  moneyColumn({ field: "margin", headerName: "Margin", width: 120 }),
  moneyColumn({ field: "freeMargin", headerName: "Free margin" }),
  percentColumn({ field: "marginLevel", headerName: "Margin level" }),
  textColumn({ field: "currency", headerName: "Currency", width: 100 }),
  textColumn({
    field: "platformName",
    headerName: "Platform",
    width: 180,
    cellRenderer: (p: Cell) =>
      p.data ? (
        <span className="flex items-center gap-2">
          <PlatformTypeBadge type={p.data.platformType} />
          <span className="truncate">{p.data.platformName}</span>
        </span>
      ) : null,
  }),
  moneyColumn({ field: "credit", headerName: "Credit", width: 115 }),
  integerColumn({ field: "leverage", headerName: "Leverage", width: 105, valueFormatter: (p) => (p.value ? `1:${p.value}` : "—") }),
  textColumn({
    field: "marginState",
    headerName: "Margin state",
    width: 130,
    cellRenderer: (p: Cell) => (p.data ? <MarginStateBadge state={p.data.marginState} /> : null),
  }),
  textColumn({
    colId: "enabled",
    field: "enabled",
    headerName: "State",
    width: 120,
    cellRenderer: (p: Cell) => (p.data ? <AccountStateBadges enabled={p.data.enabled} readOnly={p.data.readOnly} /> : null),
  }),
  textColumn({ field: "email", headerName: "Email", width: 230 }),
  dateTimeColumn({ field: "lastAccess", headerName: "Last access" }),
  dateTimeColumn({ field: "registration", headerName: "Registration", hide: true }),
];

/** The CSV of the same figures: raw exact decimals (spreadsheets format them), not the screen's text. */
export const ACCOUNT_CSV_COLUMNS: Record<string, CsvColumn<AccountRow>> = {
  login: { header: "Login", value: (r) => r.login },
  platformName: { header: "Platform", value: (r) => r.platformName },
  group: { header: "Group", value: (r) => r.group },
  name: { header: "Name", value: (r) => r.name },
  email: { header: "Email", value: (r) => r.email },
  leverage: { header: "Leverage", value: (r) => r.leverage },
  currency: { header: "Currency", value: (r) => r.currency },
  balance: { header: "Balance", value: (r) => r.balance },
  credit: { header: "Credit", value: (r) => r.credit },
  equity: { header: "Equity", value: (r) => r.equity },
  margin: { header: "Margin", value: (r) => r.margin },
  freeMargin: { header: "Free margin", value: (r) => r.freeMargin },
  marginLevel: { header: "Margin level %", value: (r) => r.marginLevel },
  marginState: { header: "Margin state", value: (r) => marginStateLabel(r.marginState) },
  enabled: { header: "State", value: (r) => accountStateLabel(r) },
  registration: { header: "Registration", value: (r) => toDate(r.registration)?.toISOString() },
  lastAccess: { header: "Last access", value: (r) => toDate(r.lastAccess)?.toISOString() },
};
