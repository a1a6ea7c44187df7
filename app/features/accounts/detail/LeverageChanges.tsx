import { useQuery } from "@tanstack/react-query";
import { useCurrentOrganizationId } from "~/profile";
import { formatDateTime } from "~/ui/grid";
import { accountsApi } from "../accountsApi";
import type { AccountDetail } from "../accountTypes";

/**
 * The account's leverage changes made by Flexible Leverage (docs/flexible-leverage.md), newest
 * first: when, from → to, the rule, its tier (or window) and the engine's reason; read again when
 * the account's leverage changes.
 */
export function LeverageChanges({ account }: { account: AccountDetail }) {
  const organizationId = useCurrentOrganizationId();
  const { data, isError } = useQuery({
    queryKey: [organizationId, "accounts", account.platformId, account.login, "leverageChanges", account.leverage],
    queryFn: ({ signal }) => accountsApi.leverageChanges(account.platformId, account.login, signal),
  });
  if (isError || !data) return null;
  return (
    <section aria-labelledby="leverage-changes" className="grid gap-2">
      <h3 id="leverage-changes" className="text-sm font-semibold">
        Leverage changes
      </h3>
      {data.length === 0 ? (
        <p className="text-sm text-muted">Flexible Leverage has not changed this account&apos;s leverage.</p>
      ) : (
        <ul className="divide-y divide-border rounded-lg border border-border text-sm">
          {data.map((c) => (
            <li key={c.id} className="grid gap-0.5 px-3 py-2" data-testid="leverage-change">
              <p className="flex flex-wrap items-baseline gap-x-3">
                <span className="text-muted tabular-nums">{formatDateTime(c.at)}</span>
                <span className="font-medium tabular-nums">
                  1:{c.from} → 1:{c.to}
                </span>
                <span>{c.rule === null ? "no rule" : `rule '${c.rule}'`}</span>
                <span className="text-muted">{c.window !== null ? `${c.window} window` : c.tier !== null ? `tier ${c.tier + 1}` : ""}</span>
                <span className="text-xs text-muted">{c.source === "plugin" ? "server's plugin" : "Toolbox"}</span>
                {c.status !== "applied" ? <span className="text-xs text-danger">{c.status}</span> : null}
              </p>
              <p className="text-muted">{c.error ?? c.reason}</p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
