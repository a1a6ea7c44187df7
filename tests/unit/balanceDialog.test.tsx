import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

vi.mock("~/auth", () => ({ getFreshUser: async () => ({ access_token: "t" }), relogin: async () => {} }));

import { BalanceOperationDialog } from "~/features/accounts/actions/BalanceOperationDialog";
import { resetProfile, useProfileStore } from "~/profile/store";

const account = { platformId: "p1", login: "1001", name: "Ann", balance: "100.00", credit: "0.00" };
const json = (body: unknown, status: number) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
const done = { status: "done", operationId: "op-1", type: "deposit", amount: "50.00", balance: "150.00", credit: "0.00", at: "2025-01-01T00:00:00.000Z" };

describe("balance operation dialog", () => {
  let keys: string[];
  let answers: (() => Promise<Response>)[];

  beforeEach(() => {
    resetProfile();
    useProfileStore.setState({ currentOrganizationId: "org-1" });
    keys = [];
    answers = [];
    vi.spyOn(Math, "random").mockReturnValue(0); // backoff waits of exactly 1 s, 2 s…
    vi.stubGlobal(
      "fetch",
      vi.fn(async (_url: string, init: RequestInit) => {
        keys.push(new Headers(init.headers).get("Idempotency-Key")!);
        return answers.shift()!();
      }),
    );
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it("shows that it is still confirming while it asks again with the same key, locks the form meanwhile, and does not start a second operation when reopened", async () => {
    const user = userEvent.setup();
    let answer!: (r: Response) => void;
    answers.push(
      async () => {
        throw new TypeError("Failed to fetch");
      },
      async () => json({ message: "The same operation is still in progress; retry in a moment" }, 409),
      () => new Promise<Response>((resolve) => (answer = resolve)),
    );
    const onDone = vi.fn();
    render(<BalanceOperationDialog account={account} onDone={onDone} />);
    await user.click(screen.getByRole("button", { name: "Balance operation" }));
    await user.type(screen.getByLabelText("Amount"), "50");
    await user.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Deposit" }));

    expect(await screen.findByText(/Still confirming with the trading platform/)).toBeTruthy();
    expect(screen.queryByRole("alert")).toBeNull(); // progress, not an error
    expect(screen.getByLabelText<HTMLInputElement>("Amount").disabled).toBe(true);
    await waitFor(() => expect(keys).toHaveLength(3), { timeout: 5000 });

    // Closed and reopened while confirming: the same operation is shown, not a fresh form.
    await user.keyboard("{Escape}");
    await user.click(screen.getByRole("button", { name: "Balance operation" }));
    expect(screen.getByLabelText<HTMLInputElement>("Amount").value).toBe("50");
    expect(screen.getByText(/Still confirming/)).toBeTruthy();

    answer(json(done, 201));
    expect(await screen.findByText("Deposit done")).toBeTruthy();
    expect(onDone).toHaveBeenCalledWith(done);
    expect(new Set(keys).size).toBe(1);
  }, 10_000);

  it("shows a final refusal (422) as the server wrote it, and the next try is a new operation", async () => {
    const user = userEvent.setup();
    answers.push(
      async () => json({ message: "The trading platform refused the operation." }, 422),
      async () => json(done, 201),
    );
    render(<BalanceOperationDialog account={account} onDone={() => {}} />);
    await user.click(screen.getByRole("button", { name: "Balance operation" }));
    // The amount, not the first radio, has the focus: it is what is typed first.
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText("Amount")));
    await user.type(screen.getByLabelText("Amount"), "50");
    const deposit = () => within(screen.getByRole("dialog")).getByRole("button", { name: "Deposit" });
    await user.click(deposit());
    expect((await screen.findByRole("alert")).textContent).toContain("The trading platform refused the operation.");
    expect(screen.getByLabelText<HTMLInputElement>("Amount").disabled).toBe(false);
    await user.click(deposit());
    expect(await screen.findByText("Deposit done")).toBeTruthy();
    expect(keys).toHaveLength(2);
    expect(keys[0]).not.toBe(keys[1]);
  });
  it("shows an unreconciled answer (202) as money that may have moved, to check, never as a failure to retry", async () => {
    const user = userEvent.setup();
    const unreconciled = {
      status: "unreconciled",
      operationId: "op-2",
      type: "deposit",
      amount: "50.00",
      reason: "Toolbox could not write its audit record.",
      balance: "150.00",
      credit: null,
      at: null,
    };
    answers.push(async () => json(unreconciled, 202));
    const onDone = vi.fn();
    render(<BalanceOperationDialog account={account} onDone={onDone} />);
    await user.click(screen.getByRole("button", { name: "Balance operation" }));
    await user.type(screen.getByLabelText("Amount"), "50");
    await user.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Deposit" }));

    expect(await screen.findByText("Deposit needs checking")).toBeTruthy();
    expect(screen.getByText(/could not write its audit record/)).toBeTruthy();
    expect(screen.queryByText("Deposit done")).toBeNull();
    expect(screen.queryByRole("alert")).toBeNull();
    expect(screen.queryByRole("button", { name: "Deposit" })).toBeNull(); // no way to send it again from here
    expect(keys).toHaveLength(1);
  });
});
