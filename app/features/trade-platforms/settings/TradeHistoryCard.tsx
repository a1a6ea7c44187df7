import { currentFormat } from "~/ui/format";
import { useQuery } from "@tanstack/react-query";
import type { TradeHistorySync } from "@core/schemas/tradesBlotter";
import { useCurrentOrganizationId } from "~/profile";
import { Card, CardContent } from "~/ui/Card";
import { platformApi } from "../platformApi";

/** While a backfill runs, its progress is read again this often. */
const POLL_MS = 2000;

function statusText(sync: TradeHistorySync): string {
  switch (sync.status) {
    case "idle":
      return "Not read yet: the history is read when the platform connects.";
    case "backfilling":
      return sync.accountsTotal === 0 ? "Listing accounts…" : `Reading deals: ${sync.accountsDone} of ${sync.accountsTotal} accounts`;
    case "live":
      return `Up to date${sync.windowFrom ? ` (read from ${currentFormat().date(sync.windowFrom)})` : ""}; new trades arrive live.`;
    case "failed":
      return `Reading the history failed${sync.lastError ? `: ${sync.lastError}` : ""}. It is read again when the platform reconnects.`;
  }
}

/**
 * The trade history store's state for this platform (docs/trades-blotter.md): a progress bar
 * while its deals are read on connect, then "up to date".
 */
export function TradeHistoryCard({ platformId }: { platformId: string }) {
  const organizationId = useCurrentOrganizationId();
  const query = useQuery({
    queryKey: ["tradeHistorySync", organizationId, platformId],
    queryFn: ({ signal }) => platformApi.tradeHistory(platformId, signal),
    refetchInterval: (q) => (q.state.data?.status === "backfilling" || q.state.data?.status === "idle" ? POLL_MS : false),
  });
  const sync = query.data;
  const percent = sync && sync.accountsTotal > 0 ? Math.round((100 * sync.accountsDone) / sync.accountsTotal) : 0;
  return (
    <Card>
      <CardContent className="grid gap-2">
        <p className="text-xs font-medium text-muted">Trade history</p>
        {sync ? (
          <>
            <p className="text-sm" role="status">
              {statusText(sync)}
            </p>
            {sync.status === "backfilling" ? (
              <div
                role="progressbar"
                aria-label="Trade history read"
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={percent}
                className="h-1.5 overflow-hidden rounded-full bg-border"
              >
                <div className="h-full bg-primary transition-[width]" style={{ width: `${percent}%` }} />
              </div>
            ) : null}
          </>
        ) : (
          <p className="text-sm text-muted">{query.isError ? "The trade history's state could not be read." : "Loading…"}</p>
        )}
      </CardContent>
    </Card>
  );
}
