import { useState } from "react";
import { ApiError } from "~/api";
import { Switch } from "~/ui/Switch";
import { toast } from "~/ui/toast";
import { accountsApi, type AccountPatch } from "../accountsApi";
import type { AccountRow } from "../accountTypes";

/** "Can log in" (enabled) and "Can trade" (not read-only), each applied on the platform at once. */
export function AccountTradingSwitches({ account, canWrite, onChanged }: { account: AccountRow; canWrite: boolean; onChanged: (row: AccountRow) => void }) {
  const [pending, setPending] = useState<keyof AccountPatch | null>(null);
  // Called without waiting (`void change(…)`): it tells the outcome itself, a toast either way (the
  // API client shows the refusal); only an unexpected error escapes, to the page's error reporting.
  async function change(field: "enabled" | "readOnly", value: boolean, done: string) {
    setPending(field);
    try {
      onChanged(await accountsApi.update(account.platformId, account.login, { [field]: value }, { silent: false }));
      toast({ title: done, description: `Account ${account.login}`, color: "success" });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    } finally {
      setPending(null);
    }
  }
  const row = (id: string, label: string, hint: string, checked: boolean, onChange: (v: boolean) => void, busy: boolean) => (
    <div className="flex items-center justify-between gap-4">
      <label htmlFor={id} className="grid">
        <span className="text-sm font-medium">{label}</span>
        <span className="text-xs text-muted">{hint}</span>
      </label>
      <Switch id={id} checked={checked} onCheckedChange={onChange} disabled={!canWrite || pending !== null || busy} />
    </div>
  );
  return (
    <div className="grid gap-3 rounded-lg border border-border p-3">
      {row(
        `login-${account.login}`,
        "Can log in",
        "Off: the trader cannot sign in at all.",
        account.enabled,
        (v) => void change("enabled", v, v ? "Account enabled" : "Account disabled"),
        pending === "enabled",
      )}
      {row(
        `trade-${account.login}`,
        "Can trade",
        "Off: signs in and sees the account, but cannot open or close positions.",
        !account.readOnly,
        (v) => void change("readOnly", !v, v ? "Trading enabled" : "Trading disabled"),
        pending === "readOnly",
      )}
    </div>
  );
}
