import { UserPlus, Wand2 } from "lucide-react";
import { useState } from "react";
import { useAccess, useTradePlatforms } from "~/profile";
import { Button } from "~/ui/Button";
import { Field } from "~/ui/Field";
import { formatMoney } from "~/ui/grid";
import { Input } from "~/ui/Input";
import { Select } from "~/ui/Select";
import { toast } from "~/ui/toast";
import { ApiError } from "~/api";
import { accountsApi } from "../accountsApi";
import type { AccountRow } from "../accountTypes";
import { ActionDialog } from "./ActionDialog";
import {
  amountProblem,
  countryProblem,
  emailProblem,
  generatePassword,
  groupProblem,
  leverageProblem,
  nameProblem,
  normalizeAmount,
  parseLeverage,
  passwordProblem,
  phoneProblem,
} from "./accountRules";
import { createAccountWithDeposit } from "./createAccount";
import { GroupField } from "./GroupField";

const EMPTY = { platformId: "", group: "", name: "", email: "", phone: "", country: "", leverage: "100", password: "", deposit: "" };
type Values = typeof EMPTY;

/** Every field's problem at once (a form that shows one at a time makes a dealer submit once per mistake). */
export function createAccountProblems(v: Values, canMoveMoney: boolean): Partial<Record<keyof Values, string>> {
  const problems: Partial<Record<keyof Values, string | null>> = {
    platformId: v.platformId ? null : "Choose the platform",
    name: nameProblem(v.name),
    email: emailProblem(v.email),
    phone: phoneProblem(v.phone),
    country: countryProblem(v.country),
    group: groupProblem(v.group),
    leverage: leverageProblem(v.leverage),
    password: passwordProblem(v.password),
    deposit: canMoveMoney && v.deposit.trim() ? amountProblem(v.deposit) : null,
  };
  return Object.fromEntries(Object.entries(problems).filter(([, p]) => p));
}

/** A new trading account on one of the organization's platforms, with an initial deposit if given; opened once created. */
export function CreateAccountDialog({ onCreated }: { onCreated: (row: AccountRow) => void }) {
  const platforms = useTradePlatforms().filter((p) => p.enable);
  const canMoveMoney = useAccess().hasModule("users", "money");
  const [v, setV] = useState(EMPTY);
  const [tried, setTried] = useState(false);
  const set = (key: keyof Values) => (value: string) => setV((s) => ({ ...s, [key]: value, ...(key === "platformId" ? { group: "" } : {}) }));
  const problems = tried ? createAccountProblems(v, canMoveMoney) : {};
  return (
    <ActionDialog
      trigger={
        <>
          <UserPlus aria-hidden /> Create account
        </>
      }
      triggerVariant="primary"
      title="Create a trading account"
      description="The platform creates it and picks the next free login."
      submitLabel="Create account"
      disabled={platforms.length === 0}
      onOpen={() => {
        setTried(false);
        setV({ ...EMPTY, platformId: platforms.length === 1 ? (platforms[0]?.id ?? "") : "" });
      }}
      validate={() => {
        setTried(true);
        const count = Object.keys(createAccountProblems(v, canMoveMoney)).length;
        return count === 0 ? null : count === 1 ? "Correct the field marked above." : `Correct the ${count} fields marked above.`;
      }}
      onSubmit={async () => {
        const deposit = canMoveMoney && v.deposit.trim() ? normalizeAmount(v.deposit) : null;
        const { row, depositError } = await createAccountWithDeposit(
          accountsApi,
          {
            platformId: v.platformId,
            group: v.group.trim(),
            name: v.name.trim(),
            ...(v.email.trim() ? { email: v.email.trim() } : {}),
            ...(v.phone.trim() ? { phone: v.phone.trim() } : {}),
            ...(v.country.trim() ? { country: v.country.trim() } : {}),
            leverage: parseLeverage(v.leverage),
            password: v.password,
          },
          deposit,
        );
        if (depositError) {
          const why = depositError instanceof ApiError && depositError.status ? depositError.message : "Toolbox's service did not answer.";
          toast({
            title: "Account created, not the initial deposit",
            description: `${row.login} on ${row.platformName}. The deposit was not done: ${why} Check the account's balance operations before trying again.`,
            color: "warning",
          });
        } else {
          toast({
            title: "Account created",
            description: `${row.login} on ${row.platformName}${deposit ? `, with a deposit of ${formatMoney(deposit)}` : ""}.`,
            color: "success",
          });
        }
        onCreated(row);
      }}
    >
      <Field label="Platform" error={problems.platformId}>
        <Select
          value={v.platformId || undefined}
          onValueChange={set("platformId")}
          placeholder="Choose a platform"
          options={platforms.map((p) => ({ value: p.id, label: p.name }))}
        />
      </Field>
      <div className="grid items-start gap-4 sm:grid-cols-2">
        <Field label="Name" error={problems.name}>
          <Input value={v.name} onChange={(e) => set("name")(e.target.value)} autoComplete="off" />
        </Field>
        <Field label="Email (optional)" error={problems.email}>
          <Input type="email" value={v.email} onChange={(e) => set("email")(e.target.value)} autoComplete="off" />
        </Field>
        <Field label="Phone (optional)" error={problems.phone}>
          <Input type="tel" value={v.phone} onChange={(e) => set("phone")(e.target.value)} autoComplete="off" />
        </Field>
        <Field label="Country (optional)" error={problems.country}>
          <Input value={v.country} onChange={(e) => set("country")(e.target.value)} autoComplete="off" />
        </Field>
        <GroupField platformId={v.platformId} value={v.group} onChange={set("group")} error={problems.group} />
        <Field label="Leverage (1:…)" error={problems.leverage}>
          <Input value={v.leverage} onChange={(e) => set("leverage")(e.target.value)} inputMode="numeric" autoComplete="off" />
        </Field>
      </div>
      <div className="flex items-start gap-2">
        <Field
          label="Password"
          className="flex-1"
          error={problems.password}
          description="8 to 16 characters mixing lower case, upper case and digits. Give it to the trader; Toolbox does not keep it."
        >
          <Input value={v.password} onChange={(e) => set("password")(e.target.value)} autoComplete="new-password" spellCheck={false} className="font-mono" />
        </Field>
        <Button variant="secondary" className="mt-[1.375rem]" onClick={() => set("password")(generatePassword())}>
          <Wand2 aria-hidden /> Generate
        </Button>
      </div>
      {canMoveMoney ? (
        <Field
          label="Initial deposit (optional)"
          error={problems.deposit}
          description="Made once the account exists, exactly once, in the group's currency; it shows among the account's balance operations."
        >
          <Input value={v.deposit} onChange={(e) => set("deposit")(e.target.value)} inputMode="decimal" autoComplete="off" placeholder="0.00" />
        </Field>
      ) : null}
    </ActionDialog>
  );
}
