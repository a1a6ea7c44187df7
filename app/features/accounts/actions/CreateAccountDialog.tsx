import { UserPlus, Wand2 } from "lucide-react";
import { useState } from "react";
import { useTradePlatforms } from "~/profile";
import { Button } from "~/ui/Button";
import { Field } from "~/ui/Field";
import { Input } from "~/ui/Input";
import { Select } from "~/ui/Select";
import { toast } from "~/ui/toast";
import { accountsApi } from "../accountsApi";
import type { AccountRow } from "../accountTypes";
import { ActionDialog } from "./ActionDialog";
import { emailProblem, generatePassword, groupProblem, leverageProblem, nameProblem, parseLeverage, passwordProblem } from "./accountRules";

const EMPTY = { platformId: "", group: "", name: "", email: "", leverage: "100", password: "" };

/** A new trading account on one of the organization's platforms; opened once created. */
export function CreateAccountDialog({ onCreated }: { onCreated: (row: AccountRow) => void }) {
  const platforms = useTradePlatforms().filter((p) => p.enable);
  const [v, setV] = useState(EMPTY);
  const set = (key: keyof typeof EMPTY) => (value: string) => setV((s) => ({ ...s, [key]: value }));
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
      onOpen={() => setV({ ...EMPTY, platformId: platforms.length === 1 ? (platforms[0]?.id ?? "") : "" })}
      validate={() => {
        if (!v.platformId) return "Choose the platform.";
        return nameProblem(v.name) ?? emailProblem(v.email) ?? groupProblem(v.group) ?? leverageProblem(v.leverage) ?? passwordProblem(v.password);
      }}
      onSubmit={async () => {
        const row = await accountsApi.create({
          platformId: v.platformId,
          group: v.group.trim(),
          name: v.name.trim(),
          ...(v.email.trim() ? { email: v.email.trim() } : {}),
          leverage: parseLeverage(v.leverage),
          password: v.password,
        });
        toast({ title: "Account created", description: `${row.login} on ${row.platformName}.`, color: "success" });
        onCreated(row);
      }}
    >
      <Field label="Platform">
        <Select
          value={v.platformId || undefined}
          onValueChange={set("platformId")}
          placeholder="Choose a platform"
          options={platforms.map((p) => ({ value: p.id, label: p.name }))}
        />
      </Field>
      <div className="grid items-start gap-4 sm:grid-cols-2">
        <Field label="Name">
          <Input value={v.name} onChange={(e) => set("name")(e.target.value)} autoComplete="off" />
        </Field>
        <Field label="Email (optional)">
          <Input type="email" value={v.email} onChange={(e) => set("email")(e.target.value)} autoComplete="off" />
        </Field>
        <Field label="Group">
          <Input value={v.group} onChange={(e) => set("group")(e.target.value)} placeholder="e.g. real\standard" autoComplete="off" spellCheck={false} />
        </Field>
        <Field label="Leverage (1:…)">
          <Input value={v.leverage} onChange={(e) => set("leverage")(e.target.value)} inputMode="numeric" autoComplete="off" />
        </Field>
      </div>
      <div className="flex items-start gap-2">
        <Field
          label="Password"
          className="flex-1"
          description="8 to 16 characters mixing lower case, upper case and digits. Give it to the trader; Toolbox does not keep it."
        >
          <Input value={v.password} onChange={(e) => set("password")(e.target.value)} autoComplete="new-password" spellCheck={false} className="font-mono" />
        </Field>
        <Button variant="secondary" className="mt-[1.375rem]" onClick={() => set("password")(generatePassword())}>
          <Wand2 aria-hidden /> Generate
        </Button>
      </div>
    </ActionDialog>
  );
}
