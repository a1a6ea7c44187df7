import { MAX_COMMENT_LENGTH } from "@core/trading/balance";
import { ArrowDownToLine, ArrowUpFromLine, CircleCheck, HandCoins, Info, Landmark } from "lucide-react";
import { useId, useState, type FormEvent } from "react";
import { ApiError } from "~/api";
import type { BalanceOperationType } from "@core/trading/balance";
import { ChoiceCards } from "~/features/trade-platforms/form/ChoiceCards";
import { FormAlert } from "~/features/trade-platforms/form/FormAlert";
import { Button } from "~/ui/Button";
import { DescriptionList } from "~/ui/DescriptionList";
import { DialogClose, DialogContent, DialogRoot, DialogTrigger } from "~/ui/Dialog";
import { Field } from "~/ui/Field";
import { formatMoney } from "~/ui/grid";
import { Input } from "~/ui/Input";
import { accountsApi, type BalanceOperationInput } from "../accountsApi";
import type { AccountRow, BalanceOperationResult } from "../accountTypes";
import { amountProblem, normalizeAmount } from "./accountRules";
import { BalanceSubmission, isUncertain } from "./balanceSubmission";

export const OPERATION_LABELS: Record<BalanceOperationType, string> = {
  deposit: "Deposit",
  withdrawal: "Withdrawal",
  creditIn: "Credit in",
  creditOut: "Credit out",
};

const COMMENT_MAX = MAX_COMMENT_LENGTH;
type Account = Pick<AccountRow, "platformId" | "login" | "name" | "balance" | "credit">;

/** Deposit, withdrawal, credit in or out: done exactly once, however often it is clicked or retried. */
export function BalanceOperationDialog({ account, onDone }: { account: Account; onDone: (result: BalanceOperationResult) => void }) {
  const [open, setOpen] = useState(false);
  return (
    <DialogRoot open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button size="sm">
          <HandCoins aria-hidden /> Balance operation
        </Button>
      </DialogTrigger>
      {/* Mounted per opening: each opening is a new operation with its own Idempotency-Key. */}
      {open ? <BalanceOperationForm account={account} onDone={onDone} /> : null}
    </DialogRoot>
  );
}

function BalanceOperationForm({ account, onDone }: { account: Account; onDone: (result: BalanceOperationResult) => void }) {
  const [submission] = useState(() => new BalanceSubmission<BalanceOperationInput, BalanceOperationResult>());
  const [type, setType] = useState<BalanceOperationType>("deposit");
  const [amount, setAmount] = useState("");
  const [comment, setComment] = useState("");
  const [amountError, setAmountError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [uncertain, setUncertain] = useState(false);
  const [pending, setPending] = useState(false);
  const [result, setResult] = useState<BalanceOperationResult | null>(null);
  const formId = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (pending || result) return;
    const problem = amountProblem(amount);
    setAmountError(problem);
    if (problem) return;
    const body: BalanceOperationInput = { type, amount: normalizeAmount(amount), ...(comment.trim() ? { comment: comment.trim() } : {}) };
    setPending(true);
    setError(null);
    try {
      const done = await submission.submit(body, (b, key) => accountsApi.balanceOperation(account.platformId, account.login, b, key));
      setResult(done);
      setUncertain(false);
      onDone(done);
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) return;
      setUncertain(submission.uncertain);
      setError(
        isUncertain(e)
          ? "No answer arrived from Toolbox's service, so the operation may or may not have been done."
          : e instanceof ApiError
            ? e.message
            : "The operation failed.",
      );
    } finally {
      setPending(false);
    }
  }

  if (result) {
    return (
      <DialogContent
        title={`${OPERATION_LABELS[result.type] ?? "Operation"} done`}
        description={`Account ${account.login}${account.name ? ` · ${account.name}` : ""}`}
        footer={
          <DialogClose asChild>
            <Button>Close</Button>
          </DialogClose>
        }
      >
        <div role="status" className="grid gap-4">
          <p className="flex items-center gap-2 text-sm">
            <CircleCheck aria-hidden className="size-4 text-success" />
            {OPERATION_LABELS[result.type]} of <span className="font-semibold tabular-nums">{formatMoney(result.amount)}</span> recorded.
          </p>
          <DescriptionList
            items={[
              { term: "New balance", value: <span className="text-lg font-semibold tabular-nums">{formatMoney(result.balance)}</span> },
              { term: "Credit", value: <span className="tabular-nums">{formatMoney(result.credit)}</span> },
              { term: "Operation", value: <span className="font-mono text-xs">{result.operationId}</span> },
            ]}
          />
        </div>
      </DialogContent>
    );
  }

  return (
    <DialogContent
      title="Balance operation"
      description={`Account ${account.login}${account.name ? ` · ${account.name}` : ""}. Balance ${formatMoney(account.balance)}, credit ${formatMoney(account.credit)}.`}
      className="max-w-xl"
      footer={
        <>
          <DialogClose asChild>
            <Button variant="secondary">Cancel</Button>
          </DialogClose>
          <Button type="submit" form={formId} loading={pending}>
            {uncertain ? "Retry" : `${OPERATION_LABELS[type]}`}
          </Button>
        </>
      }
    >
      <form id={formId} onSubmit={submit} noValidate className="grid gap-4">
        <ChoiceCards
          legend="Operation"
          name="type"
          value={type}
          onChange={setType}
          disabled={pending}
          className="grid-cols-2 sm:grid-cols-2"
          choices={[
            { value: "deposit", label: "Deposit", icon: <ArrowDownToLine aria-hidden className="size-4 text-primary" />, description: "Adds to the balance" },
            { value: "withdrawal", label: "Withdrawal", icon: <ArrowUpFromLine aria-hidden className="size-4 text-primary" />, description: "Takes from the balance" },
            { value: "creditIn", label: "Credit in", icon: <Landmark aria-hidden className="size-4 text-primary" />, description: "Adds credit" },
            { value: "creditOut", label: "Credit out", icon: <Landmark aria-hidden className="size-4 text-primary" />, description: "Removes credit" },
          ]}
        />
        <div className="grid items-start gap-4 sm:grid-cols-[10rem_1fr]">
          <Field label="Amount" error={amountError}>
            <Input
              value={amount}
              onChange={(e) => {
                setAmount(e.target.value);
                setAmountError(null);
              }}
              inputMode="decimal"
              placeholder="0.00"
              autoComplete="off"
              className="text-right tabular-nums"
              disabled={pending}
              autoFocus
            />
          </Field>
          <Field label="Comment (optional)" description={`Shown in the account's history. ${comment.length}/${COMMENT_MAX}`}>
            <Input value={comment} onChange={(e) => setComment(e.target.value.slice(0, COMMENT_MAX))} maxLength={COMMENT_MAX} autoComplete="off" disabled={pending} />
          </Field>
        </div>
        {uncertain ? (
          <div className="flex gap-3 rounded-md border border-info/30 bg-info/5 p-3 text-sm">
            <Info aria-hidden className="mt-0.5 size-4 shrink-0 text-info" />
            <p>Retry sends the same operation with the same key: if the first attempt went through, it is not done again.</p>
          </div>
        ) : null}
        <FormAlert message={error} />
      </form>
    </DialogContent>
  );
}
