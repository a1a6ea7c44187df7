import type { ColDef, ICellRendererParams } from "ag-grid-community";
import { ROLE_LABELS } from "@core/roles";
import type { MemberView } from "@core/schemas/members";
import { Badge } from "~/ui/Badge";
import { DataGrid, dateTimeColumn, textColumn } from "~/ui/grid";

const COLUMNS: ColDef<MemberView>[] = [
  textColumn({ field: "name", headerName: "Name", width: 200, valueFormatter: (p) => (p.value as string | null) ?? "—" }),
  textColumn({ field: "email", headerName: "E-mail", width: 240, valueFormatter: (p) => (p.value as string | null) ?? "—" }),
  textColumn({
    field: "role",
    headerName: "Role",
    width: 150,
    cellRenderer: (p: ICellRendererParams<MemberView>) =>
      p.data ? <Badge tone={p.data.admin ? "primary" : "outline"}>{ROLE_LABELS[p.data.role]}</Badge> : null,
  }),
  dateTimeColumn({ field: "lastSignInAt", headerName: "Last sign-in", width: 180 }),
  dateTimeColumn({ field: "joinedAt", headerName: "Joined", width: 180 }),
];

/** The organization's members; Enter or a click opens one to change their role or remove them. */
export function MembersGrid({ members, onOpen }: { members: MemberView[]; onOpen?: (member: MemberView) => void }) {
  return (
    <DataGrid<MemberView>
      label="Members"
      columnDefs={COLUMNS}
      rowData={members}
      getRowId={(p) => p.data.sub}
      onRowOpen={onOpen}
      emptyText="No members."
      domLayout="autoHeight"
      className="h-auto"
    />
  );
}
