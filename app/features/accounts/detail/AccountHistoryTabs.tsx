import { useQuery } from "@tanstack/react-query";
import type { ColDef } from "ag-grid-community";
import { useState } from "react";
import { useCurrentOrganizationId } from "~/profile";
import { DataGrid } from "~/ui/grid";
import { accountsApi } from "../accountsApi";
import { DateRangeFields } from "./DateRangeFields";
import { lastDays, rangeToIso, type DayRange } from "./dateRange";
import { DetailTabs } from "./DetailTabs";
import { DEAL_COLUMNS, JOURNAL_COLUMNS, POSITION_COLUMNS } from "./tradeColumns";

type Account = { platformId: string; login: string };

/** Open positions, deal history and journal of one account, each a tab that loads when opened. */
export function AccountHistoryTabs({ account }: { account: Account }) {
  return (
    <DetailTabs
      label="Account activity"
      tabs={[
        { id: "positions", label: "Open positions", content: () => <Positions account={account} /> },
        { id: "deals", label: "Deal history", content: () => <Ranged account={account} kind="deals" /> },
        { id: "journal", label: "Journal", content: () => <Ranged account={account} kind="journal" /> },
      ]}
    />
  );
}

function Positions({ account }: { account: Account }) {
  const organizationId = useCurrentOrganizationId();
  const positions = useQuery({
    queryKey: ["account", organizationId, account.platformId, account.login, "positions"],
    queryFn: ({ signal }) => accountsApi.positions(account.platformId, account.login, signal),
    // Prices move: keep the floating profit reasonably fresh while the tab is open.
    refetchInterval: 5000,
    staleTime: 0,
  });
  return (
    <DataGrid
      label="Open positions"
      stateKey="users.positions.columns"
      columnDefs={POSITION_COLUMNS}
      rowData={positions.data}
      loading={positions.isPending}
      getRowId={(p) => p.data.id}
      emptyText="No open position."
      className="h-80"
    />
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
