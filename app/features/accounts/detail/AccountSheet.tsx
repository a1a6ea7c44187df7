import * as DialogPrimitive from "@radix-ui/react-dialog";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { UserX, X } from "lucide-react";
import { ApiError } from "~/api";
import { PlatformTypeBadge } from "~/features/trade-platforms";
import { useAccess, useCurrentOrganizationId } from "~/profile";
import { Button } from "~/ui/Button";
import { DescriptionList } from "~/ui/DescriptionList";
import { EmptyState } from "~/ui/EmptyState";
import { formatDateTime } from "~/ui/grid";
import { Skeleton } from "~/ui/Skeleton";
import { AccountStateBadges } from "../AccountBadges";
import { accountQueryKey, accountsApi } from "../accountsApi";
import type { AccountDetail, AccountRow } from "../accountTypes";
import { ChangeGroupDialog, ChangeLeverageDialog, EditDetailsDialog, ResetPasswordDialog } from "../actions/AccountEditDialogs";
import { BalanceOperationDialog } from "../actions/BalanceOperationDialog";
import { AccountFigures } from "./AccountFigures";
import { AccountHistoryTabs } from "./AccountHistoryTabs";
import { LeverageChanges } from "./LeverageChanges";
import { AccountTradingSwitches } from "./AccountTradingSwitches";
import { ReconcileNotice } from "./ReconcileNotice";

/**
 * One account, in a panel over the list (/users?account=<platformId>:<login>): the list keeps
 * its filters and scroll, the URL can be shared, and Back closes the panel.
 */
export function AccountSheet({
  account,
  onClose,
  onChanged,
}: {
  account: { platformId: string; login: string } | null;
  onClose: () => void;
  onChanged: () => void;
}) {
  return (
    <DialogPrimitive.Root open={account !== null} onOpenChange={(open) => (open ? undefined : onClose())}>
      <DialogPrimitive.Portal>
        <DialogPrimitive.Overlay className="tb-overlay fixed inset-0 z-40 bg-black/40" />
        <DialogPrimitive.Content
          aria-describedby={undefined}
          className="fixed inset-y-0 right-0 z-40 flex w-full max-w-4xl flex-col border-l border-border bg-bg shadow-2xl outline-none"
        >
          {account ? <AccountPanel key={`${account.platformId}:${account.login}`} account={account} onChanged={onChanged} /> : null}
          <DialogPrimitive.Close asChild>
            <Button variant="ghost" size="icon" className="absolute top-3 right-3" aria-label="Close account">
              <X aria-hidden />
            </Button>
          </DialogPrimitive.Close>
        </DialogPrimitive.Content>
      </DialogPrimitive.Portal>
    </DialogPrimitive.Root>
  );
}

function AccountPanel({ account, onChanged }: { account: { platformId: string; login: string }; onChanged: () => void }) {
  const organizationId = useCurrentOrganizationId();
  const queryClient = useQueryClient();
  const { hasModule } = useAccess();
  const key = accountQueryKey(organizationId, account.platformId, account.login);
  const detail = useQuery({ queryKey: key, queryFn: ({ signal }) => accountsApi.get(account.platformId, account.login, signal), staleTime: 5000 });

  /** A change answered with the new row: the panel and the list both show it at once. */
  const changed = (row: Partial<AccountRow>) => {
    queryClient.setQueryData<AccountDetail>(key, (before) => (before ? { ...before, ...row } : before));
    void queryClient.invalidateQueries({ queryKey: key });
    onChanged();
  };

  if (detail.isPending) {
    return (
      <div className="grid gap-4 p-6" role="status" aria-label="Loading the account">
        <DialogPrimitive.Title className="sr-only">Account {account.login}</DialogPrimitive.Title>
        <Skeleton className="h-8 w-64" />
        <Skeleton className="h-32" />
        <Skeleton className="h-64" />
      </div>
    );
  }
  if (detail.isError) {
    const notFound = detail.error instanceof ApiError && detail.error.status === 404;
    return (
      <div className="p-6">
        <DialogPrimitive.Title className="mb-4 text-lg font-semibold">Account {account.login}</DialogPrimitive.Title>
        <EmptyState
          icon={UserX}
          title={notFound ? "No such account" : "The account could not be loaded"}
          description={notFound ? "It is not on any of this organization's platforms." : "Toolbox's service did not answer. Try again in a moment."}
        />
      </div>
    );
  }

  const a = detail.data;
  const canWrite = hasModule("users", "write");
  const canMoveMoney = hasModule("users", "money");
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <header className="border-b border-border bg-surface px-6 pt-5 pb-4">
        <p className="flex items-center gap-2 text-xs text-muted">
          <PlatformTypeBadge type={a.platformType} />
          {a.platformName}
          {a.live === false ? (
            <span title={a.updatedAt ? `As of ${formatDateTime(a.updatedAt)}` : undefined}>· last known figures (the platform did not answer)</span>
          ) : null}
        </p>
        <DialogPrimitive.Title className="mt-1.5 flex flex-wrap items-center gap-3 pr-10 text-xl font-semibold tracking-tight">
          <span className="font-mono">{a.login}</span>
          <span className="font-normal text-muted">{a.name || "No name"}</span>
          <AccountStateBadges enabled={a.enabled} readOnly={a.readOnly} />
        </DialogPrimitive.Title>
        <p className="mt-1 text-sm text-muted">
          Group <span className="font-medium text-fg">{a.group}</span> · Leverage <span className="font-medium text-fg">1:{a.leverage}</span> · {a.currency}
        </p>
        {canWrite || canMoveMoney ? (
          <div className="mt-4 flex flex-wrap gap-2" role="group" aria-label="Account actions">
            {canMoveMoney ? (
              <BalanceOperationDialog
                account={a}
                // An unreconciled answer may carry no figures; the account is re-read either way (and with it the operations list).
                onDone={(result) => changed(result.balance !== null && result.credit !== null ? { balance: result.balance, credit: result.credit } : {})}
              />
            ) : null}
            {canWrite ? (
              <>
                <EditDetailsDialog account={a} onChanged={changed} />
                <ChangeGroupDialog account={a} onChanged={changed} />
                <ChangeLeverageDialog account={a} onChanged={changed} />
                <ResetPasswordDialog account={a} />
                <ResetPasswordDialog account={a} kind="investor" />
              </>
            ) : null}
          </div>
        ) : null}
      </header>
      {/* A block scroller around the grid: grid rows inside a height-limited grid would shrink and clip. */}
      <div className="min-h-0 flex-1 overflow-y-auto">
        <div className="grid gap-6 px-6 py-5">
          <ReconcileNotice account={account} />
          <AccountFigures account={a} />
          <div className="grid gap-6 lg:grid-cols-[1fr_20rem]">
            <DescriptionList
              items={[
                { term: "Email", value: a.email || "—" },
                { term: "Phone", value: a.phone || "—" },
                { term: "Country", value: [a.city, a.country].filter(Boolean).join(", ") || "—" },
                { term: "Address", value: a.address || "—" },
                { term: "Comment", value: a.comment || "—" },
                { term: "Registered", value: formatDateTime(a.registration) },
                { term: "Last access", value: formatDateTime(a.lastAccess) },
              ]}
            />
            <div className="self-start">
              <AccountTradingSwitches account={a} canWrite={canWrite} onChanged={changed} />
            </div>
          </div>
          <AccountHistoryTabs account={a} canWrite={canWrite} onChanged={() => changed({})} />
          <LeverageChanges account={a} />
        </div>
      </div>
    </div>
  );
}
