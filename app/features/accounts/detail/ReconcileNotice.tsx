import { useQuery } from "@tanstack/react-query";
import { TriangleAlert } from "lucide-react";
import { useCurrentOrganizationId } from "~/profile";
import { formatDateTime, formatMoney } from "~/ui/grid";
import { balanceOperationsQueryKey, accountsApi } from "../accountsApi";
import { OPERATION_LABELS } from "../actions/BalanceOperationDialog";

/**
 * Balance operations whose outcome Toolbox could not record (the platform answered, the record
 * failed) or never learnt (no answer, no retry since): a person checks them against the
 * account's deals on the platform. Shown only when there are some.
 */
export function ReconcileNotice({ account }: { account: { platformId: string; login: string } }) {
  const organizationId = useCurrentOrganizationId();
  const operations = useQuery({
    queryKey: balanceOperationsQueryKey(organizationId, account.platformId, account.login),
    queryFn: ({ signal }) => accountsApi.balanceOperations(account.platformId, account.login, signal),
    staleTime: 5000,
  });
  const toCheck = (operations.data ?? []).filter((o) => o.needsReconciling);
  if (toCheck.length === 0) return null;
  return (
    <section aria-labelledby="reconcile-heading" className="rounded-md border border-warning/40 bg-warning/10 p-3 text-sm">
      <h2 id="reconcile-heading" className="flex items-center gap-2 font-semibold">
        <TriangleAlert aria-hidden className="size-4 shrink-0 text-warning" />
        {toCheck.length === 1 ? "A balance operation needs reconciling" : `${toCheck.length} balance operations need reconciling`}
      </h2>
      <ul className="mt-2 grid gap-2">
        {toCheck.map((o) => (
          <li key={o.operationId}>
            <span className="font-medium">
              {OPERATION_LABELS[o.type]} of <span className="tabular-nums">{formatMoney(o.amount)}</span>
            </span>{" "}
            <span className="text-muted">
              · {formatDateTime(o.createdAt)} · operation <span className="font-mono text-xs">{o.operationId}</span>
            </span>
            {o.reason ? <p className="text-muted">{o.reason}</p> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
