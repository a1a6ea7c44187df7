import { MAX_COMMENT_LENGTH } from "@core/trading/balance";
import { ArrowDownToLine, ArrowUpFromLine, CircleCheck, HandCoins, Info, Landmark, TriangleAlert } from "lucide-react";
import { useId, useRef, useState, useSyncExternalStore, type FormEvent } from "react";
import { ApiError } from "~/api";
import type { BalanceOperationType } from "@core/trading/balance";
import { ChoiceCards } from "~/ui/ChoiceCards";
import { FormAlert } from "~/ui/FormAlert";
import { Button } from "~/ui/Button";
import { DescriptionList } from "~/ui/DescriptionList";
import { DialogClose, DialogContent, DialogRoot, DialogTrigger } from "~/ui/Dialog";
import { Field } from "~/ui/Field";
import { formatMoney } from "~/ui/grid";
import { Input } from "~/ui/Input";
import { Spinner } from "~/ui/Spinner";
import { accountsApi, type BalanceOperationInput } from "../accountsApi";
import type { AccountRow, BalanceOperationResult } from "../accountTypes";
import { amountProblem, normalizeAmount } from "./accountRules";
import { BalanceSubmission, type SubmissionPhase } from "./balanceSubmission";

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
  const [submission, setSubmission] = useState(newSubmission);
  function openChange(next: boolean) {
    // Each opening is a new operation with its own Idempotency-Key, unless the last one has no final
    // answer yet: then that one is shown again (still confirming, or in doubt), never a second one.
    if (next && !inProgress(submission.snapshot().phase)) setSubmission(newSubmission());
    setOpen(next);
  }
  return (
    <DialogRoot open={open} onOpenChange={openChange}>
      <DialogTrigger asChild>
        <Button size="sm">
          <HandCoins aria-hidden /> Balance operation
        </Button>
      </DialogTrigger>
      {open ? <BalanceOperationForm account={account} submission={submission} onDone={onDone} /> : null}
    </DialogRoot>
  );
}

type Submission = BalanceSubmission<BalanceOperationInput, BalanceOperationResult>;
const newSubmission = (): Submission => new BalanceSubmission<BalanceOperationInput, BalanceOperationResult>();
const inProgress = (phase: SubmissionPhase) => phase === "sending" || phase === "confirming" || phase === "uncertain";

function BalanceOperationForm({ account, submission, onDone }: { account: Account; submission: Submission; onDone: (result: BalanceOperationResult) => void }) {
  const state = useSyncExternalStore(submission.subscribe, submission.snapshot, submission.snapshot);
  // Reopened while an operation is confirming or in doubt: its request is shown, and cannot change.
  const [type, setType] = useState<BalanceOperationType>(state.body?.type ?? "deposit");
  const [amount, setAmount] = useState(state.body?.amount ?? "");
  const [comment, setComment] = useState(state.body?.comment ?? "");
  const [amountError, setAmountError] = useState<string | null>(null);
  const formId = useId();
  // Focused on opening (the operation starts as a deposit): the amount is what is typed first.
  const amountInput = useRef<HTMLInputElement>(null);
  const { phase, result } = state;
  const pending = phase === "sending" || phase === "confirming";
  const locked = pending || phase === "uncertain";

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (pending || result) return;
    const problem = amountProblem(amount);
    setAmountError(problem);
    if (problem) return;
    const body: BalanceOperationInput = state.body ?? { type, amount: normalizeAmount(amount), ...(comment.trim() ? { comment: comment.trim() } : {}) };
    try {
      onDone(await submission.submit(body, (b, key) => accountsApi.balanceOperation(account.platformId, account.login, b, key)));
    } catch {
      // Shown from the submission's state below.
    }
  }

  if (result) {
    const unreconciled = result.status === "unreconciled";
    const label = OPERATION_LABELS[result.type] ?? "Operation";
    return (
      <DialogContent
        // Unreconciled: the platform answered, so the money may well have moved — never an error to retry with a new key.
        title={`${label} ${unreconciled ? "needs checking" : "done"}`}
        description={`Account ${account.login}${account.name ? ` · ${account.name}` : ""}`}
        footer={
          <DialogClose asChild>
            <Button>Close</Button>
          </DialogClose>
        }
      >
        <div role="status" className="grid gap-4">
          {unreconciled ? (
            <p className="flex items-start gap-2 text-sm">
              <TriangleAlert aria-hidden className="mt-0.5 size-4 shrink-0 text-warning" />
              <span>
                The platform answered the {label.toLowerCase()} of <span className="font-semibold tabular-nums">{formatMoney(result.amount)}</span>, but Toolbox
                could not finish recording it: {result.reason} Check the account on the platform before doing it again; it is listed in the account panel until
                then.
              </span>
            </p>
          ) : (
            <p className="flex items-center gap-2 text-sm">
              <CircleCheck aria-hidden className="size-4 text-success" />
              {label} of <span className="font-semibold tabular-nums">{formatMoney(result.amount)}</span> recorded.
            </p>
          )}
          <DescriptionList
            items={[
              {
                term: unreconciled ? "Balance reported" : "New balance",
                value: <span className={unreconciled ? "tabular-nums" : "text-lg font-semibold tabular-nums"}>{formatMoney(result.balance)}</span>,
              },
              { term: unreconciled ? "Credit reported" : "Credit", value: <span className="tabular-nums">{formatMoney(result.credit)}</span> },
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
      initialFocus={amountInput}
      footer={
        <>
          <DialogClose asChild>
            <Button variant="secondary">Cancel</Button>
          </DialogClose>
          <Button type="submit" form={formId} loading={pending}>
            {phase === "uncertain" ? "Check again" : `${OPERATION_LABELS[type]}`}
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
          disabled={locked}
          className="grid-cols-2 sm:grid-cols-2"
          choices={[
            { value: "deposit", label: "Deposit", icon: <ArrowDownToLine aria-hidden className="size-4 text-primary" />, description: "Adds to the balance" },
            {
              value: "withdrawal",
              label: "Withdrawal",
              icon: <ArrowUpFromLine aria-hidden className="size-4 text-primary" />,
              description: "Takes from the balance",
            },
            { value: "creditIn", label: "Credit in", icon: <Landmark aria-hidden className="size-4 text-primary" />, description: "Adds credit" },
            { value: "creditOut", label: "Credit out", icon: <Landmark aria-hidden className="size-4 text-primary" />, description: "Removes credit" },
          ]}
        />
        <div className="grid items-start gap-4 sm:grid-cols-[10rem_1fr]">
          <Field label="Amount" error={amountError}>
            <Input
              ref={amountInput}
              value={amount}
              onChange={(e) => {
                setAmount(e.target.value);
                setAmountError(null);
              }}
              inputMode="decimal"
              placeholder="0.00"
              autoComplete="off"
              className="text-right tabular-nums"
              disabled={locked}
            />
          </Field>
          <Field label="Comment (optional)" description={`Shown in the account's history. ${comment.length}/${COMMENT_MAX}`}>
            <Input
              value={comment}
              onChange={(e) => setComment(e.target.value.slice(0, COMMENT_MAX))}
              maxLength={COMMENT_MAX}
              autoComplete="off"
              disabled={locked}
            />
          </Field>
        </div>
        <SubmissionStatus phase={phase} error={state.error} />
      </form>
    </DialogContent>
  );
}

/** Confirming is progress, not a failure; in doubt, the person is told what "Check again" does. */
export function SubmissionStatus({ phase, error }: { phase: SubmissionPhase; error: unknown }) {
  if (phase === "confirming")
    return (
      <div role="status" className="flex gap-3 rounded-md border border-info/30 bg-info/5 p-3 text-sm">
        <Spinner size="sm" label={null} className="mt-0.5 shrink-0 text-info" />
        <p>
          Still confirming with the trading platform… Toolbox asks again with the same key until it has a final answer, so the operation is done at most once.
        </p>
      </div>
    );
  if (phase === "uncertain")
    return (
      <div role="alert" className="flex gap-3 rounded-md border border-warning/30 bg-warning/5 p-3 text-sm">
        <Info aria-hidden className="mt-0.5 size-4 shrink-0 text-warning" />
        <p>
          No final answer arrived, so the operation may or may not have been done. Check again asks with the same key: if it went through, it is not done again.
        </p>
      </div>
    );
  if (phase !== "ready" || !error || (error instanceof ApiError && error.status === 401)) return null;
  return <FormAlert message={error instanceof ApiError ? error.message : "The operation failed."} />;
}
