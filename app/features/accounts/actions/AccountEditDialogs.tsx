import { Eye, KeyRound, Pencil, Scale, Users, Wand2 } from "lucide-react";
import { useState } from "react";
import { Button } from "~/ui/Button";
import { Field } from "~/ui/Field";
import { Input } from "~/ui/Input";
import { toast } from "~/ui/toast";
import { accountsApi } from "../accountsApi";
import type { AccountRow } from "../accountTypes";
import { ActionDialog } from "./ActionDialog";
import {
  COMMON_LEVERAGES,
  countryProblem,
  emailProblem,
  generatePassword,
  groupProblem,
  leverageProblem,
  nameProblem,
  parseLeverage,
  passwordProblem,
  phoneProblem,
} from "./accountRules";
import { GroupField } from "./GroupField";

type Account = Pick<AccountRow, "platformId" | "login" | "group" | "leverage" | "name">;
type Details = Pick<AccountRow, "name" | "email"> & { phone: string; country: string };
const DETAIL_FIELDS = ["name", "email", "phone", "country"] as const;

/** The fields changed (trimmed), and each field's problem at once. */
export function detailsChange(before: Details, typed: Details): { patch: Partial<Details>; problems: Partial<Record<keyof Details, string>> } {
  const check = { name: nameProblem, email: emailProblem, phone: phoneProblem, country: countryProblem };
  const patch: Partial<Details> = {};
  const problems: Partial<Record<keyof Details, string>> = {};
  for (const field of DETAIL_FIELDS) {
    const value = typed[field].trim();
    const problem = check[field](value);
    if (problem) problems[field] = problem;
    else if (value !== (before[field] ?? "")) patch[field] = value;
  }
  return { patch, problems };
}

/** The client's name, e-mail, phone and country, as the platform keeps them. */
export function EditDetailsDialog({ account, onChanged }: { account: Account & Details; onChanged: (row: AccountRow) => void }) {
  const current = (): Details => ({ name: account.name, email: account.email, phone: account.phone, country: account.country });
  const [typed, setTyped] = useState<Details>(current);
  const [tried, setTried] = useState(false);
  const { patch, problems } = detailsChange(current(), typed);
  const shown = tried ? problems : {};
  const field = (key: keyof Details, label: string, type?: string) => (
    <Field label={label} error={shown[key]}>
      <Input type={type} value={typed[key]} onChange={(e) => setTyped((t) => ({ ...t, [key]: e.target.value }))} autoComplete="off" />
    </Field>
  );
  return (
    <ActionDialog
      trigger={
        <>
          <Pencil aria-hidden /> Edit details
        </>
      }
      title={`Edit the details of ${account.login}`}
      description="Changed on the platform, where the trader's terminal reads them."
      submitLabel="Save details"
      onOpen={() => {
        setTyped(current());
        setTried(false);
      }}
      validate={() => {
        setTried(true);
        const count = Object.keys(problems).length;
        if (count > 0) return count === 1 ? "Correct the field marked above." : `Correct the ${count} fields marked above.`;
        return Object.keys(patch).length === 0 ? "Nothing changed." : null;
      }}
      onSubmit={async () => {
        onChanged(await accountsApi.update(account.platformId, account.login, patch));
        toast({ title: "Details saved", description: `${account.login}: ${Object.keys(patch).join(", ")} changed.`, color: "success" });
      }}
    >
      <div className="grid items-start gap-4 sm:grid-cols-2">
        {field("name", "Name")}
        {field("email", "Email", "email")}
        {field("phone", "Phone", "tel")}
        {field("country", "Country")}
      </div>
    </ActionDialog>
  );
}

export function ChangeGroupDialog({ account, onChanged }: { account: Account; onChanged: (row: AccountRow) => void }) {
  const [group, setGroup] = useState(account.group);
  return (
    <ActionDialog
      trigger={
        <>
          <Users aria-hidden /> Change group
        </>
      }
      title={`Change the group of ${account.login}`}
      description="The group sets the account's currency, margin call and stop-out levels, and the symbols it trades."
      submitLabel="Change group"
      onOpen={() => setGroup(account.group)}
      validate={() => groupProblem(group) ?? (group.trim() === account.group ? "That is already its group." : null)}
      onSubmit={async () => {
        onChanged(await accountsApi.update(account.platformId, account.login, { group: group.trim() }));
        toast({ title: "Group changed", description: `${account.login} is now in ${group.trim()}.`, color: "success" });
      }}
    >
      <GroupField platformId={account.platformId} value={group} onChange={setGroup} description={`Now: ${account.group}`} />
    </ActionDialog>
  );
}

export function ChangeLeverageDialog({ account, onChanged }: { account: Account; onChanged: (row: AccountRow) => void }) {
  const [leverage, setLeverage] = useState(String(account.leverage));
  const listId = `leverages-${account.login}`;
  return (
    <ActionDialog
      trigger={
        <>
          <Scale aria-hidden /> Change leverage
        </>
      }
      title={`Change the leverage of ${account.login}`}
      description="Applies to new and open positions at once: the margin in use changes with it."
      submitLabel="Change leverage"
      onOpen={() => setLeverage(String(account.leverage))}
      validate={() => leverageProblem(leverage) ?? (parseLeverage(leverage) === account.leverage ? "That is already its leverage." : null)}
      onSubmit={async () => {
        const value = parseLeverage(leverage);
        onChanged(await accountsApi.update(account.platformId, account.login, { leverage: value }));
        toast({ title: "Leverage changed", description: `${account.login} now trades at 1:${value}.`, color: "success" });
      }}
    >
      <Field label="Leverage (1:…)" description={`Now: 1:${account.leverage}`}>
        <Input value={leverage} onChange={(e) => setLeverage(e.target.value)} inputMode="numeric" list={listId} autoComplete="off" />
      </Field>
      <datalist id={listId}>
        {COMMON_LEVERAGES.map((l) => (
          <option key={l} value={l}>{`1:${l}`}</option>
        ))}
      </datalist>
      <div className="flex flex-wrap gap-1.5" role="group" aria-label="Common leverages">
        {COMMON_LEVERAGES.map((l) => (
          <Button
            key={l}
            size="sm"
            variant={String(l) === leverage ? "primary" : "secondary"}
            className="h-7 px-2 font-mono"
            onClick={() => setLeverage(String(l))}
          >
            1:{l}
          </Button>
        ))}
      </div>
    </ActionDialog>
  );
}

export function ResetPasswordDialog({ account, kind = "main" }: { account: Account; kind?: "main" | "investor" }) {
  const investor = kind === "investor";
  const [password, setPassword] = useState("");
  const [shown, setShown] = useState(false);
  return (
    <ActionDialog
      trigger={
        <>
          {investor ? <Eye aria-hidden /> : <KeyRound aria-hidden />} {investor ? "Investor password" : "Reset password"}
        </>
      }
      title={investor ? `Set the investor password of ${account.login}` : `Reset the password of ${account.login}`}
      description={
        investor
          ? "With the investor password one can watch the account, not trade. Give it through a safe channel; Toolbox does not keep it."
          : "The trader signs in with the new password from now on. Give it to them through a safe channel; Toolbox does not keep it."
      }
      submitLabel={investor ? "Set investor password" : "Reset password"}
      onOpen={() => {
        setPassword("");
        setShown(false);
      }}
      validate={() => passwordProblem(password)}
      onSubmit={async () => {
        await accountsApi.resetPassword(account.platformId, account.login, password, kind);
        toast({
          title: investor ? "Investor password set" : "Password reset",
          description: `${account.login} has a new ${investor ? "investor " : ""}password.`,
          color: "success",
        });
      }}
    >
      <Field label="New password" description="8 to 16 characters mixing lower case, upper case and digits.">
        <Input
          type={shown ? "text" : "password"}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          autoComplete="new-password"
          spellCheck={false}
        />
      </Field>
      <div className="flex flex-wrap gap-2">
        <Button
          size="sm"
          variant="secondary"
          onClick={() => {
            setPassword(generatePassword());
            setShown(true);
          }}
        >
          <Wand2 aria-hidden /> Generate
        </Button>
        <Button size="sm" variant="ghost" onClick={() => setShown((s) => !s)} aria-pressed={shown}>
          {shown ? "Hide" : "Show"} password
        </Button>
      </div>
    </ActionDialog>
  );
}
