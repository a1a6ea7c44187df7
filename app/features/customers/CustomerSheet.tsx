import * as DialogPrimitive from "@radix-ui/react-dialog";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { KYC_LABELS, countryName, joinTags, type CustomerDetail } from "@core/schemas/customers";
import { Link2, Pencil, Trash2, Unlink, X } from "lucide-react";
import { useState, type FormEvent } from "react";
import { ApiError } from "~/api";
import { useAccess, useCurrentOrganizationId } from "~/profile";
import { Badge } from "~/ui/Badge";
import { Button } from "~/ui/Button";
import { DescriptionList } from "~/ui/DescriptionList";
import { Field } from "~/ui/Field";
import { FormAlert } from "~/ui/FormAlert";
import { formatDateTime, formatMoney } from "~/ui/grid";
import { Input } from "~/ui/Input";
import { Skeleton } from "~/ui/Skeleton";
import { CustomerStatusBadge } from "./CustomerBadges";
import { CustomerDialog } from "./CustomerDialog";
import { customerQueryKey, customersApi } from "./customersApi";

/** How often the panel reads the linked accounts' figures again (the mirror follows the platforms live). */
const LIVE_MS = 3000;

/** One customer in a panel over the list (/customers?customer=<id>): shareable, Back closes it. */
export function CustomerSheet({ id, onClose, onChanged }: { id: string | null; onClose: () => void; onChanged: () => void }) {
  return (
    <DialogPrimitive.Root open={id !== null} onOpenChange={(open) => (open ? undefined : onClose())}>
      <DialogPrimitive.Portal>
        <DialogPrimitive.Overlay className="tb-overlay fixed inset-0 z-40 bg-black/40" />
        <DialogPrimitive.Content
          aria-describedby={undefined}
          className="fixed inset-y-0 right-0 z-40 flex w-full max-w-3xl flex-col overflow-y-auto border-l border-border bg-bg shadow-2xl outline-none"
        >
          {id ? <CustomerPanel key={id} id={id} onChanged={onChanged} onDeleted={onClose} /> : null}
          <DialogPrimitive.Close asChild>
            <Button variant="ghost" size="icon" className="absolute top-3 right-3" aria-label="Close customer">
              <X aria-hidden />
            </Button>
          </DialogPrimitive.Close>
        </DialogPrimitive.Content>
      </DialogPrimitive.Portal>
    </DialogPrimitive.Root>
  );
}

function CustomerPanel({ id, onChanged, onDeleted }: { id: string; onChanged: () => void; onDeleted: () => void }) {
  const organizationId = useCurrentOrganizationId();
  const queryClient = useQueryClient();
  const { hasModule } = useAccess();
  const canWrite = hasModule("customers", "write");
  const key = customerQueryKey(organizationId, id);
  const detail = useQuery({ queryKey: key, queryFn: ({ signal }) => customersApi.get(id, signal), refetchInterval: LIVE_MS });
  const [editing, setEditing] = useState(false);
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: key });
    onChanged();
  };

  if (detail.isPending) {
    return (
      <div className="grid gap-4 p-6" role="status" aria-label="Loading the customer">
        <DialogPrimitive.Title className="sr-only">Customer</DialogPrimitive.Title>
        <Skeleton className="h-8 w-64" />
        <Skeleton className="h-40" />
      </div>
    );
  }
  if (detail.isError) {
    const notFound = detail.error instanceof ApiError && detail.error.status === 404;
    return (
      <div className="p-6">
        <DialogPrimitive.Title className="text-lg font-semibold">{notFound ? "Customer not found" : "The customer could not be loaded"}</DialogPrimitive.Title>
        <p className="mt-2 text-sm text-muted">{detail.error.message}</p>
      </div>
    );
  }
  const c = detail.data;
  return (
    <div className="grid gap-6 p-6">
      <header className="grid gap-2 pr-10">
        <DialogPrimitive.Title className="text-xl font-semibold">{c.name}</DialogPrimitive.Title>
        <div className="flex flex-wrap items-center gap-2">
          <CustomerStatusBadge status={c.status} />
          <span className="text-sm text-muted">{c.kind === "company" ? "Company" : "Person"}</span>
        </div>
        {canWrite ? (
          <div className="flex gap-2">
            <Button size="sm" variant="secondary" onClick={() => setEditing(true)}>
              <Pencil aria-hidden />
              Edit
            </Button>
            <DeleteButton customer={c} onDeleted={() => (onChanged(), onDeleted())} />
          </div>
        ) : null}
      </header>
      <DescriptionList
        items={[
          { term: "Email", value: c.email || "—" },
          { term: "Phone", value: c.phone || "—" },
          { term: "Country", value: c.country ? `${countryName(c.country)} (${c.country})` : "—" },
          { term: "KYC", value: KYC_LABELS[c.kyc] },
          { term: "Tags", value: c.tags.length ? joinTags(c.tags) : "—" },
          { term: "Owner", value: c.ownerName ?? "—" },
          { term: "Created", value: formatDateTime(c.createdAt) },
          { term: "Updated", value: formatDateTime(c.updatedAt) },
        ]}
      />
      <LinkedAccounts customer={c} canWrite={canWrite} onChanged={refresh} />
      <RecentDeals customer={c} />
      <Notes id={c.id} canWrite={canWrite} />
      {editing ? <CustomerDialog open={editing} onOpenChange={setEditing} customer={c} onSaved={refresh} /> : null}
    </div>
  );
}

function DeleteButton({ customer, onDeleted }: { customer: CustomerDetail; onDeleted: () => void }) {
  const [busy, setBusy] = useState(false);
  return (
    <Button
      size="sm"
      variant="ghost"
      loading={busy}
      onClick={async () => {
        if (!window.confirm(`Delete ${customer.name}? Its ${customer.accountCount} linked accounts are unlinked, not deleted.`)) return;
        setBusy(true);
        try {
          await customersApi.remove(customer.id);
          onDeleted();
        } finally {
          setBusy(false);
        }
      }}
    >
      <Trash2 aria-hidden />
      Delete
    </Button>
  );
}

function LinkedAccounts({ customer, canWrite, onChanged }: { customer: CustomerDetail; canWrite: boolean; onChanged: () => void }) {
  return (
    <section aria-labelledby="linked-accounts" className="grid gap-3">
      <h3 id="linked-accounts" className="text-base font-semibold">
        Trading accounts
      </h3>
      {customer.accounts.length === 0 ? (
        <p className="text-sm text-muted">No account linked yet.</p>
      ) : (
        <div className="overflow-x-auto rounded-md border border-border">
          <table className="w-full text-sm">
            <caption className="sr-only">Linked trading accounts with their live balance and equity</caption>
            <thead className="bg-subtle text-left">
              <tr>
                <th scope="col" className="px-3 py-1.5 font-medium">
                  Platform
                </th>
                <th scope="col" className="px-3 py-1.5 font-medium">
                  Login
                </th>
                <th scope="col" className="px-3 py-1.5 font-medium">
                  Name
                </th>
                <th scope="col" className="px-3 py-1.5 text-right font-medium">
                  Balance
                </th>
                <th scope="col" className="px-3 py-1.5 text-right font-medium">
                  Equity
                </th>
                {canWrite ? (
                  <th scope="col" className="px-3 py-1.5">
                    <span className="sr-only">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {customer.accounts.map((a) => (
                <tr key={`${a.platformId}:${a.login}`} className="border-t border-border" data-account={`${a.platformName}:${a.login}`}>
                  <td className="px-3 py-1.5">{a.platformName}</td>
                  <td className="px-3 py-1.5 font-mono tabular-nums">
                    {a.login}
                    {a.missing ? (
                      <span className="ml-2 font-sans" title="This account no longer exists on its server. Unlink it if it is not coming back.">
                        <Badge tone="danger">Missing on its server</Badge>
                      </span>
                    ) : null}
                  </td>
                  <td className="px-3 py-1.5">{a.name ?? "—"}</td>
                  <td className="px-3 py-1.5 text-right tabular-nums">{a.balance === null ? "—" : `${formatMoney(a.balance)} ${a.currency ?? ""}`}</td>
                  <td className="px-3 py-1.5 text-right tabular-nums">{a.equity === null ? "—" : `${formatMoney(a.equity)} ${a.currency ?? ""}`}</td>
                  {canWrite ? (
                    <td className="px-3 py-1.5 text-right">
                      <Button
                        size="sm"
                        variant="ghost"
                        aria-label={`Unlink ${a.login} on ${a.platformName}`}
                        onClick={async () => {
                          await customersApi.unlink(customer.id, a);
                          onChanged();
                        }}
                      >
                        <Unlink aria-hidden />
                      </Button>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canWrite ? <LinkAccount customerId={customer.id} onLinked={onChanged} /> : null}
    </section>
  );
}

/** Accounts the search shows at most; it asks for more, as some may have a customer already. */
const LINK_RESULTS = 10;

/**
 * Find an account by login (or its start, `1002*`) or name, then link it. Accounts another
 * customer has are not offered (an account belongs to one customer): the picker says how many it
 * left out and whose they are.
 */
function LinkAccount({ customerId, onLinked }: { customerId: string; onLinked: () => void }) {
  const { hasModule } = useAccess();
  const [search, setSearch] = useState("");
  const [failure, setFailure] = useState<string | null>(null);
  const term = search.trim();
  const byLogin = /^[A-Za-z0-9._-]{1,32}\*?$/.test(term) && /\d/.test(term);
  const results = useQuery({
    queryKey: ["customer-link-search", customerId, term],
    enabled: term.length >= 2 && hasModule("users", "read"),
    queryFn: async ({ signal }) => {
      const found = await customersApi.searchAccounts(
        byLogin ? { login: term.endsWith("*") ? term : `${term}*`, limit: 3 * LINK_RESULTS } : { name: term, limit: 3 * LINK_RESULTS },
        signal,
      );
      const owners = await customersApi.accountOwners(found.items, signal);
      const ownerOf = new Map(owners.map((o) => [`${o.platformId}:${o.login}`, o]));
      const taken = found.items.flatMap((a) => ownerOf.get(`${a.platformId}:${a.login}`) ?? []);
      const free = found.items.filter((a) => !ownerOf.has(`${a.platformId}:${a.login}`)).slice(0, LINK_RESULTS);
      return { free, taken: taken.filter((o) => o.customerId !== customerId) };
    },
  });
  if (!hasModule("users", "read")) return <p className="text-sm text-muted">Linking accounts needs read access to the Users module.</p>;
  async function link(account: { platformId: string; login: string }) {
    setFailure(null);
    try {
      await customersApi.link(customerId, account);
      setSearch("");
      onLinked();
    } catch (err) {
      setFailure(err instanceof Error ? err.message : "The account could not be linked.");
    }
  }
  return (
    <div className="grid gap-2">
      <Field label="Link an account" description="Search by login (e.g. 1002 or 1002*) or by name">
        <Input type="search" value={search} onChange={(e) => setSearch(e.target.value)} autoComplete="off" />
      </Field>
      <FormAlert message={failure} />
      {results.data && term.length >= 2 && results.data.taken.length > 0 ? (
        <p className="text-sm text-muted" data-testid="linked-elsewhere">
          {results.data.taken.length === 1
            ? `${results.data.taken[0]!.login} is linked to ${results.data.taken[0]!.customerName} and is not offered.`
            : `${results.data.taken.length} matching accounts are linked to other customers and are not offered.`}
        </p>
      ) : null}
      {results.data && term.length >= 2 ? (
        results.data.free.length === 0 ? (
          <p className="text-sm text-muted">No account to link matches.</p>
        ) : (
          <ul aria-label="Matching accounts" className="grid gap-1">
            {results.data.free.map((a) => (
              <li key={`${a.platformId}:${a.login}`} className="flex items-center justify-between gap-2 rounded-md border border-border px-3 py-1.5 text-sm">
                <span>
                  <span className="font-mono">{a.login}</span> · {a.platformName} · {a.name}
                </span>
                <Button size="sm" variant="secondary" onClick={() => link(a)} aria-label={`Link ${a.login} on ${a.platformName}`}>
                  <Link2 aria-hidden />
                  Link
                </Button>
              </li>
            ))}
          </ul>
        )
      ) : null}
    </div>
  );
}

function Notes({ id, canWrite }: { id: string; canWrite: boolean }) {
  const organizationId = useCurrentOrganizationId();
  const queryClient = useQueryClient();
  const key = [...customerQueryKey(organizationId, id), "notes"];
  const notes = useQuery({ queryKey: key, queryFn: ({ signal }) => customersApi.notes(id, signal) });
  const [text, setText] = useState("");
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  async function add(e: FormEvent) {
    e.preventDefault();
    if (!text.trim()) return setFailure("Write something first.");
    setSaving(true);
    setFailure(null);
    try {
      await customersApi.addNote(id, text.trim());
      setText("");
      void queryClient.invalidateQueries({ queryKey: key });
    } catch (err) {
      setFailure(err instanceof Error ? err.message : "The note could not be saved.");
    } finally {
      setSaving(false);
    }
  }
  return (
    <section aria-labelledby="customer-notes" className="grid gap-3">
      <h3 id="customer-notes" className="text-base font-semibold">
        Notes
      </h3>
      {canWrite ? (
        <form onSubmit={add} className="grid gap-2">
          <Field label="New note" error={failure ?? undefined}>
            <textarea
              value={text}
              onChange={(e) => setText(e.target.value)}
              rows={3}
              className="w-full rounded-md border border-input bg-surface px-3 py-2 text-sm text-fg focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none"
            />
          </Field>
          <div>
            <Button type="submit" size="sm" loading={saving}>
              Add note
            </Button>
          </div>
        </form>
      ) : null}
      {notes.data?.length ? (
        <ol className="grid gap-2" aria-label="Notes, newest first">
          {notes.data.map((n) => (
            <li key={n.id} className="rounded-md border border-border bg-surface p-3">
              <p className="text-xs text-muted">
                {n.authorName ?? n.authorSub} · <time dateTime={n.createdAt}>{formatDateTime(n.createdAt)}</time>
              </p>
              <p className="mt-1 text-sm whitespace-pre-wrap">{n.text}</p>
            </li>
          ))}
        </ol>
      ) : notes.isSuccess ? (
        <p className="text-sm text-muted">No notes yet.</p>
      ) : null}
    </section>
  );
}

function RecentDeals({ customer }: { customer: CustomerDetail }) {
  const platformName = new Map(customer.accounts.map((a) => [a.platformId, a.platformName]));
  return (
    <section aria-labelledby="recent-deals" className="grid gap-3">
      <h3 id="recent-deals" className="text-base font-semibold">
        Recent deals
      </h3>
      {customer.recentDeals.length === 0 ? (
        <p className="text-sm text-muted">No deal recorded for these accounts (the trade history covers the platforms the Trades Blotter follows).</p>
      ) : (
        <div className="overflow-x-auto rounded-md border border-border">
          <table className="w-full text-sm">
            <caption className="sr-only">The linked accounts&apos; latest deals, newest first</caption>
            <thead className="bg-subtle text-left">
              <tr>
                <th scope="col" className="px-3 py-1.5 font-medium">
                  Time
                </th>
                <th scope="col" className="px-3 py-1.5 font-medium">
                  Account
                </th>
                <th scope="col" className="px-3 py-1.5 font-medium">
                  Action
                </th>
                <th scope="col" className="px-3 py-1.5 font-medium">
                  Symbol
                </th>
                <th scope="col" className="px-3 py-1.5 text-right font-medium">
                  Volume
                </th>
                <th scope="col" className="px-3 py-1.5 text-right font-medium">
                  Profit
                </th>
              </tr>
            </thead>
            <tbody>
              {customer.recentDeals.map((d) => (
                <tr key={`${d.platformId}:${d.dealId}`} className="border-t border-border">
                  <td className="px-3 py-1.5 whitespace-nowrap">{formatDateTime(d.time)}</td>
                  <td className="px-3 py-1.5">
                    <span className="font-mono">{d.login}</span> · {platformName.get(d.platformId) ?? ""}
                  </td>
                  <td className="px-3 py-1.5">
                    {d.action}
                    {d.entry ? ` ${d.entry}` : ""}
                  </td>
                  <td className="px-3 py-1.5">{d.symbol ?? "—"}</td>
                  <td className="px-3 py-1.5 text-right tabular-nums">{d.volume}</td>
                  <td className="px-3 py-1.5 text-right tabular-nums">{formatMoney(d.profit)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
