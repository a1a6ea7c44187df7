import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { ColDef } from "ag-grid-community";
import { useMemo, useState } from "react";
import { useCurrentOrganizationId } from "~/profile";
import { DataGrid } from "~/ui/grid";
import { accountsApi, positionsQueryKey } from "../accountsApi";
import type { PositionOperationResult, PositionRow } from "../accountTypes";
import { DateRangeFields } from "./DateRangeFields";
import { lastDays, rangeToIso, type DayRange } from "./dateRange";
import { LocalTabs } from "~/ui/Tabs";
import { PositionOperationDialog, positionActionsColumn, usePositionTarget } from "./PositionActions";
import { DEAL_COLUMNS, JOURNAL_COLUMNS, POSITION_COLUMNS } from "./tradeColumns";

type Account = { platformId: string; login: string };

/**
 * Open positions, deal history and journal of one account, each a tab that loads when opened; with
 * the users module's write permission, each position's row actions (./PositionActions.tsx).
 */
export function AccountHistoryTabs({ account, canWrite = false, onChanged }: { account: Account; canWrite?: boolean; onChanged?: () => void }) {
  return (
    <LocalTabs
      label="Account activity"
      tabs={[
        { id: "positions", label: "Open positions", content: () => <Positions account={account} canWrite={canWrite} onChanged={onChanged} /> },
        { id: "deals", label: "Deal history", content: () => <Ranged account={account} kind="deals" /> },
        { id: "journal", label: "Journal", content: () => <Ranged account={account} kind="journal" /> },
      ]}
    />
  );
}

function Positions({ account, canWrite, onChanged }: { account: Account; canWrite: boolean; onChanged?: () => void }) {
  const organizationId = useCurrentOrganizationId();
  const queryClient = useQueryClient();
  const key = positionsQueryKey(organizationId, account.platformId, account.login);
  const { target, open, close } = usePositionTarget();
  const columns = useMemo(() => (canWrite ? [...POSITION_COLUMNS, positionActionsColumn(open)] : POSITION_COLUMNS), [canWrite, open]);
  /** The row shows the answer at once (on MT4 a partial close re-issues the rest under a new ticket), then the list is read again. */
  const done = (result: PositionOperationResult, before: PositionRow) => {
    queryClient.setQueryData<PositionRow[]>(key, (rows) =>
      rows?.flatMap((row) => (row.id !== before.id ? [row] : result.position ? [{ ...row, ...result.position }] : [])),
    );
    void queryClient.invalidateQueries({ queryKey: key });
    onChanged?.();
    close();
  };
  const positions = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => accountsApi.positions(account.platformId, account.login, signal),
    // Prices move: keep the floating profit reasonably fresh while the tab is open.
    refetchInterval: 5000,
    staleTime: 0,
  });
  return (
    <>
      <DataGrid
        label="Open positions"
        stateKey="users.positions.columns"
        columnDefs={columns}
        rowData={positions.data}
        loading={positions.isPending}
        getRowId={(p) => p.data.id}
        emptyText="No open position."
        className="h-80"
      />
      <PositionOperationDialog account={account} target={target} onClose={close} onDone={done} />
    </>
  );
}

function Ranged({ account, kind }: { account: Account; kind: "deals" | "journal" }) {
  const organizationId = useCurrentOrganizationId();
  const [range, setRange] = useState<DayRange>(() => lastDays(7));
  const iso = rangeToIso(range);
  const query = useQuery({
    queryKey: ["account", organizationId, account.platformId, account.login, kind, iso],
    enabled: iso !== null,
    queryFn: ({ signal }) => (kind === "deals" ? accountsApi.deals : accountsApi.journal)(account.platformId, account.login, iso!, signal) as Promise<object[]>,
  });
  return (
    <div className="grid gap-3">
      <DateRangeFields value={range} onChange={setRange} />
      <DataGrid<object>
        label={kind === "deals" ? "Deal history" : "Journal"}
        stateKey={`users.${kind}.columns`}
        columnDefs={(kind === "deals" ? DEAL_COLUMNS : JOURNAL_COLUMNS) as ColDef<object>[]}
        rowData={query.data}
        loading={query.isFetching}
        emptyText={kind === "deals" ? "No deal in this period." : "No journal entry in this period."}
        className="h-80"
      />
    </div>
  );
}
