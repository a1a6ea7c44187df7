import type { z } from "zod";
import type {
  AccountOwner,
  CreateCustomerSchema,
  CustomerDetail,
  CustomerNote,
  CustomerOwner,
  CustomerPage,
  Customer,
  ImportReport,
  LinkedAccount,
  PatchCustomerSchema,
} from "@core/schemas/customers";
import type { AccountPage } from "@core/schemas/accountViews";
import { useQuery } from "@tanstack/react-query";
import { api } from "~/api";
import { apiHeaders } from "~/api/headers";
import { useCurrentOrganizationId } from "~/profile";

export type CustomerInput = z.input<typeof CreateCustomerSchema>;
export type CustomerPatch = z.input<typeof PatchCustomerSchema>;
export type CustomersQuery = Record<string, string | number>;

const path = (id: string) => `/api/customers/${encodeURIComponent(id)}`;

/** The customers endpoints (module `customers`: read, write). */
export const customersApi = {
  list: (query: CustomersQuery, signal?: AbortSignal) => api.get<CustomerPage>("/api/customers", { query, signal }),
  get: (id: string, signal?: AbortSignal) => api.get<CustomerDetail>(path(id), { signal }),
  create: (body: CustomerInput) => api.post<Customer>("/api/customers", body, { silent: true }),
  update: (id: string, body: CustomerPatch) => api.patch<Customer>(path(id), body, { silent: true }),
  remove: (id: string) => api.del(path(id)),
  link: (id: string, account: { platformId: string; login: string }) => api.post<LinkedAccount[]>(`${path(id)}/accounts`, account, { silent: true }),
  unlink: (id: string, account: { platformId: string; login: string }) =>
    api.del(`${path(id)}/accounts/${encodeURIComponent(account.platformId)}/${encodeURIComponent(account.login)}`),
  /** Trading accounts to link (module `users` read): by login, `1002*` for a start, or by name. */
  searchAccounts: (query: Record<string, string | number>, signal?: AbortSignal) => api.get<AccountPage>("/api/accounts", { query, signal }),
  /** Which of these accounts a customer has already (they are not offered for linking). */
  accountOwners: (accounts: readonly { platformId: string; login: string }[], signal?: AbortSignal) =>
    accounts.length === 0
      ? Promise.resolve([])
      : api.get<AccountOwner[]>("/api/customers/accountOwners", { query: { accounts: accounts.map((a) => `${a.platformId}:${a.login}`).join(",") }, signal }),
  owners: (signal?: AbortSignal) => api.get<CustomerOwner[]>("/api/customers/owners", { signal }),
  notes: (id: string, signal?: AbortSignal) => api.get<CustomerNote[]>(`${path(id)}/notes`, { signal }),
  addNote: (id: string, text: string) => api.post<CustomerNote>(`${path(id)}/notes`, { text }, { silent: true }),
};

/**
 * POST /api/customers/import with the upload's progress (fetch cannot report it): `onProgress`
 * gets 0..1 as the file goes up; resolves with the report, rejects with the API's message.
 */
export async function importCustomers(
  body: { csv: string; mode: "all" | "validOnly"; dryRun: boolean; existing: "skip" | "update" },
  onProgress: (fraction: number) => void,
): Promise<ImportReport> {
  const headers = await apiHeaders({ "Content-Type": "application/json", Accept: "application/json" });
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/customers/import");
    headers.forEach((value, key) => xhr.setRequestHeader(key, value));
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let json: { message?: string } | ImportReport | null = null;
      try {
        json = JSON.parse(xhr.responseText) as { message?: string } | ImportReport;
      } catch {
        json = null;
      }
      if (xhr.status === 200 && json) resolve(json as ImportReport);
      else reject(new Error((json as { message?: string } | null)?.message ?? `The import failed (HTTP ${xhr.status}).`));
    };
    xhr.onerror = () => reject(new Error("The file could not be sent. Check the connection and try again."));
    xhr.send(JSON.stringify(body));
  });
}

export const customerQueryKey = (organizationId: string | null, id: string) => ["customer", organizationId, id] as const;

/** The members who can own a customer, for the owner picker and filter (read once a minute at most). */
export function useCustomerOwners() {
  const organizationId = useCurrentOrganizationId();
  return useQuery({
    queryKey: ["customers", organizationId, "owners"],
    queryFn: ({ signal }) => customersApi.owners(signal),
    enabled: Boolean(organizationId),
    staleTime: 60_000,
  });
}

/** The list's `owner` value for customers nobody owns (also the picker's "Nobody"). */
export const NO_OWNER = "none";

/** How a member is named in the owner picker and filter. */
export const ownerLabel = (o: CustomerOwner) => (o.name && o.email ? `${o.name} (${o.email})` : (o.name ?? o.email ?? o.sub));
