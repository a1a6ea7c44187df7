import { KeyRound, Scale, Users, Wand2 } from "lucide-react";
import { useState } from "react";
import { Button } from "~/ui/Button";
import { Field } from "~/ui/Field";
import { Input } from "~/ui/Input";
import { toast } from "~/ui/toast";
import { accountsApi } from "../accountsApi";
import type { AccountRow } from "../accountTypes";
import { ActionDialog } from "./ActionDialog";
import { COMMON_LEVERAGES, generatePassword, groupProblem, leverageProblem, parseLeverage, passwordProblem } from "./accountRules";

type Account = Pick<AccountRow, "platformId" | "login" | "group" | "leverage" | "name">;

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
      <Field label="Group" description={`Now: ${account.group}`}>
        <Input value={group} onChange={(e) => setGroup(e.target.value)} autoComplete="off" spellCheck={false} />
      </Field>
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

export function ResetPasswordDialog({ account }: { account: Account }) {
  const [password, setPassword] = useState("");
  const [shown, setShown] = useState(false);
  return (
    <ActionDialog
      trigger={
        <>
          <KeyRound aria-hidden /> Reset password
        </>
      }
      title={`Reset the password of ${account.login}`}
      description="The trader signs in with the new password from now on. Give it to them through a safe channel; Toolbox does not keep it."
      submitLabel="Reset password"
      onOpen={() => {
        setPassword("");
        setShown(false);
      }}
      validate={() => passwordProblem(password)}
      onSubmit={async () => {
        await accountsApi.resetPassword(account.platformId, account.login, password);
        toast({ title: "Password reset", description: `${account.login} has a new password.`, color: "success" });
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
