/**
 * The account panel's "needs reconciling" notice: fed by GET …/balance-operations, it lists only
 * the operations a person must check, with the reason, and shows nothing otherwise.
 */
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

vi.mock("~/auth", () => ({ getFreshUser: async () => ({ access_token: "t" }), relogin: async () => {} }));

import { QueryProvider } from "~/api";
import type { BalanceOperationRecord } from "~/features/accounts/accountTypes";
import { ReconcileNotice } from "~/features/accounts/detail/ReconcileNotice";
import { resetProfile, useProfileStore } from "~/profile/store";

const account = { platformId: "11111111-1111-4111-8111-111111111111", login: "1001" };
const record = (over: Partial<BalanceOperationRecord>): BalanceOperationRecord => ({
  operationId: "22222222-2222-4222-8222-222222222222",
  type: "deposit",
  amount: "75.00",
  comment: "",
  status: "done",
  needsReconciling: false,
  reason: null,
  balance: "175.00",
  credit: "0.00",
  createdAt: "2026-01-05T10:00:00.000Z",
  updatedAt: "2026-01-05T10:00:00.000Z",
  ...over,
});

function answer(records: BalanceOperationRecord[]) {
  vi.stubGlobal(
    "fetch",
    vi.fn(async () => new Response(JSON.stringify(records), { status: 200, headers: { "content-type": "application/json" } })),
  );
}

describe("ReconcileNotice", () => {
  beforeEach(() => {
    resetProfile();
    useProfileStore.setState({ currentOrganizationId: "org-1" });
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("lists the operations that need reconciling, with their reason", async () => {
    answer([
      record({
        operationId: "33333333-3333-4333-8333-333333333333",
        type: "withdrawal",
        amount: "1250.50",
        status: "unreconciled",
        needsReconciling: true,
        reason: "Could not write its audit record.",
      }),
      record({}),
    ]);
    render(
      <QueryProvider>
        <ReconcileNotice account={account} />
      </QueryProvider>,
    );
    const heading = await screen.findByRole("heading", { name: "A balance operation needs reconciling" });
    const notice = heading.closest("section")!;
    expect(notice.textContent).toContain("Withdrawal of 1,250.50");
    expect(notice.textContent).toContain("Could not write its audit record.");
    expect(notice.textContent).toContain("33333333-3333-4333-8333-333333333333");
    expect(notice.textContent).not.toContain("22222222-2222-4222-8222-222222222222");
    const [url] = vi.mocked(fetch).mock.calls[0] as unknown as [string];
    expect(url).toBe(`/api/accounts/${account.platformId}/${account.login}/balance-operations`);
  });

  it("shows nothing when every operation is settled", async () => {
    answer([record({}), record({ operationId: "44444444-4444-4444-8444-444444444444", status: "rejected", reason: "Not enough money" })]);
    const { container } = render(
      <QueryProvider>
        <ReconcileNotice account={account} />
      </QueryProvider>,
    );
    await waitFor(() => expect(fetch).toHaveBeenCalled());
    await new Promise((r) => setTimeout(r, 20));
    expect(container.textContent).toBe("");
  });
});
