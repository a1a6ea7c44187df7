import { partialCloseProblem } from "@core/schemas/positionOperations";
import { lotsToVolume } from "@core/trading/volume";
import type { ColDef, ICellRendererParams } from "ag-grid-community";
import { Ellipsis } from "lucide-react";
import { useCallback, useEffect, useId, useRef, useState, useSyncExternalStore, type FormEvent } from "react";
import { Button } from "~/ui/Button";
import { DescriptionList } from "~/ui/DescriptionList";
import { DialogClose, DialogContent, DialogRoot } from "~/ui/Dialog";
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuTrigger } from "~/ui/DropdownMenu";
import { Field } from "~/ui/Field";
import { formatMoney } from "~/ui/grid";
import { Input } from "~/ui/Input";
import { toast } from "~/ui/toast";
import { accountsApi } from "../accountsApi";
import type { PositionOperationResult, PositionRow } from "../accountTypes";
import { SubmissionStatus } from "../actions/BalanceOperationDialog";
import { BalanceSubmission, type SubmissionPhase } from "../actions/balanceSubmission";

export type PositionAction = "modify" | "close" | "partialClose";
export const POSITION_ACTION_LABELS: Record<PositionAction, string> = { modify: "Modify SL/TP", close: "Close", partialClose: "Partial close" };

type Request = { action: "modify"; body: { sl: number | null; tp: number | null } } | { action: "close"; body: { volume?: string } };
type Submission = BalanceSubmission<Request, PositionOperationResult>;
const inProgress = (phase: SubmissionPhase) => phase === "sending" || phase === "confirming" || phase === "uncertain";

/** A price as the symbol quotes it (its digits), "none" for an absent stop. */
export function formatPrice(value: number | null | undefined, digits?: number): string {
  if (value === null || value === undefined || value === 0) return "none";
  return digits === undefined ? String(value) : value.toFixed(digits);
}

/**
 * The positions grid's last column: one menu button per row. A keyboard user reaches the cell with
 * the arrow keys and opens the menu with Enter or Space (the grid keeps those keys otherwise).
 */
export function positionActionsColumn(onAction: (action: PositionAction, position: PositionRow) => void): ColDef<PositionRow> {
  return {
    colId: "actions",
    headerName: "Actions",
    width: 96,
    pinned: "right",
    sortable: false,
    resizable: false,
    suppressMovable: true,
    suppressKeyboardEvent: (p) => p.event.key === "Enter" || p.event.key === " ",
    cellRenderer: (p: ICellRendererParams<PositionRow>) => (p.data ? <ActionsCell position={p.data} cell={p.eGridCell} onAction={onAction} /> : null),
  };
}

function ActionsCell({
  position,
  cell,
  onAction,
}: {
  position: PositionRow;
  cell: HTMLElement;
  onAction: (action: PositionAction, position: PositionRow) => void;
}) {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.key === "Enter" || event.key === " ") && event.target === cell) {
        event.preventDefault();
        setOpen(true);
      }
    };
    cell.addEventListener("keydown", onKey);
    return () => cell.removeEventListener("keydown", onKey);
  }, [cell]);
  const min = position.volumeMin ? Number(position.volumeMin) : 0.01;
  return (
    <DropdownMenu open={open} onOpenChange={setOpen}>
      <DropdownMenuTrigger asChild>
        <Button variant="ghost" size="sm" tabIndex={-1} aria-label={`Actions for position ${position.id}`}>
          <Ellipsis aria-hidden /> Actions
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end">
        {(["modify", "partialClose", "close"] as const).map((action) => (
          <DropdownMenuItem key={action} disabled={action === "partialClose" && Number(position.volume) < 2 * min} onSelect={() => onAction(action, position)}>
            {POSITION_ACTION_LABELS[action]}
          </DropdownMenuItem>
        ))}
      </DropdownMenuContent>
    </DropdownMenu>
  );
}

export interface PositionTarget {
  action: PositionAction;
  position: PositionRow;
  submission: Submission;
}

/**
 * Which action is open, on which position, with its submission: a new Idempotency-Key each time
 * an action is opened, unless the same action on the same position still has an answer in doubt
 * (then that request is shown again, never a second one).
 */
export function usePositionTarget() {
  const submissions = useRef(new Map<string, Submission>());
  const [target, setTarget] = useState<PositionTarget | null>(null);
  // Stable: the grid's column definitions are built once around it.
  const open = useCallback((action: PositionAction, position: PositionRow) => {
    const key = `${action}:${position.id}`;
    const kept = submissions.current.get(key);
    const submission = kept && inProgress(kept.snapshot().phase) ? kept : new BalanceSubmission<Request, PositionOperationResult>();
    submissions.current.set(key, submission);
    setTarget({ action, position, submission });
  }, []);
  return { target, open, close: () => setTarget(null) };
}

/**
 * New stops, a partial close or a close of one position: a form (none for a close), then a
 * confirm step saying what will happen, then the order, exactly once per confirmed dialog (one
 * Idempotency-Key, asked again while its answer is in doubt: ../actions/balanceSubmission.ts).
 */
export function PositionOperationDialog({
  account,
  target,
  onClose,
  onDone,
}: {
  account: { platformId: string; login: string };
  target: PositionTarget | null;
  onClose: () => void;
  onDone: (result: PositionOperationResult, position: PositionRow) => void;
}) {
  return (
    <DialogRoot open={target !== null} onOpenChange={(open) => (open ? undefined : onClose())}>
      {target ? (
        <OperationForm
          key={`${target.action}:${target.position.id}`}
          account={account}
          action={target.action}
          position={target.position}
          submission={target.submission}
          onDone={onDone}
        />
      ) : null}
    </DialogRoot>
  );
}

function OperationForm({
  account,
  action,
  position,
  submission,
  onDone,
}: {
  account: { platformId: string; login: string };
  action: PositionAction;
  position: PositionRow;
  submission: Submission;
  onDone: (result: PositionOperationResult, position: PositionRow) => void;
}) {
  const state = useSyncExternalStore(submission.subscribe, submission.snapshot, submission.snapshot);
  const sent = state.body;
  const [sl, setSl] = useState(sent?.action === "modify" ? stopText(sent.body.sl) : stopText(position.sl));
  const [tp, setTp] = useState(sent?.action === "modify" ? stopText(sent.body.tp) : stopText(position.tp));
  const [volume, setVolume] = useState(sent?.action === "close" ? (sent.body.volume ?? "") : "");
  const [errors, setErrors] = useState<{ sl?: string; tp?: string; volume?: string }>({});
  // A close has nothing to fill in: it opens on the confirm step, as does a request still in doubt.
  const [step, setStep] = useState<"edit" | "confirm">(action === "close" || sent ? "confirm" : "edit");
  const formId = useId();
  const firstField = useRef<HTMLInputElement>(null);
  const pending = state.phase === "sending" || state.phase === "confirming";
  const digits = position.digits;
  const what = `${position.side} ${position.volume} lots ${position.symbol}, position ${position.id}`;
  const min = position.volumeMin ? lotsToVolume(Number(position.volumeMin)) : 100;
  const stepVolume = position.volumeStep ? lotsToVolume(Number(position.volumeStep)) : 100;

  function request(): Request | null {
    if (action === "modify") {
      const next = { sl: stopProblem(sl, "stop loss"), tp: stopProblem(tp, "take profit") };
      setErrors({ sl: next.sl ?? undefined, tp: next.tp ?? undefined });
      if (next.sl || next.tp) return null;
      return { action: "modify", body: { sl: stopValue(sl), tp: stopValue(tp) } };
    }
    if (action === "close") return { action: "close", body: {} };
    const problem = partialCloseProblem(volume, { positionVolume: lotsToVolume(Number(position.volume)), volumeMin: min, volumeStep: stepVolume });
    setErrors({ volume: problem ?? undefined });
    return problem ? null : { action: "close", body: { volume: volume.trim() } };
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (pending) return;
    if (step === "edit") {
      if (request()) setStep("confirm");
      return;
    }
    const body = state.body ?? request();
    if (!body) return setStep("edit");
    try {
      const result = await submission.submit(body, (b, key) => accountsApi.positionOperation(account.platformId, account.login, position.id, b, key));
      toast({ title: doneTitle(action), description: doneText(action, position, result), color: "success", icon: "success" });
      onDone(result, position);
    } catch {
      // Shown from the submission's state below.
    }
  }

  const closing = action === "modify" ? null : action === "close" ? position.volume : volume.trim();
  const remaining = action === "partialClose" && closing ? (Number(position.volume) * 10_000 - lotsToVolume(Number(closing))) / 10_000 : null;
  return (
    <DialogContent
      title={`${POSITION_ACTION_LABELS[action]} · position ${position.id}`}
      description={`Account ${account.login}: ${what}, opened at ${formatPrice(position.openPrice, digits)}, floating profit ${formatMoney(position.profit)}.`}
      initialFocus={step === "edit" ? firstField : undefined}
      footer={
        <>
          {step === "confirm" && action !== "close" && !state.body ? (
            <Button variant="secondary" onClick={() => setStep("edit")} disabled={pending}>
              Back
            </Button>
          ) : (
            <DialogClose asChild>
              <Button variant="secondary">Cancel</Button>
            </DialogClose>
          )}
          <Button type="submit" form={formId} loading={pending} variant={step === "confirm" && action !== "modify" ? "danger" : "primary"}>
            {step === "edit" ? "Review" : state.phase === "uncertain" ? "Check again" : confirmLabel(action, closing)}
          </Button>
        </>
      }
    >
      <form id={formId} onSubmit={submit} noValidate className="grid gap-4">
        {step === "edit" && action === "modify" ? (
          <div className="grid gap-4 sm:grid-cols-2">
            <Field label="Stop loss" description="Leave empty for none." error={errors.sl}>
              <Input
                ref={firstField}
                value={sl}
                onChange={(e) => setSl(e.target.value)}
                inputMode="decimal"
                autoComplete="off"
                className="text-right tabular-nums"
              />
            </Field>
            <Field label="Take profit" description="Leave empty for none." error={errors.tp}>
              <Input value={tp} onChange={(e) => setTp(e.target.value)} inputMode="decimal" autoComplete="off" className="text-right tabular-nums" />
            </Field>
          </div>
        ) : null}
        {step === "edit" && action === "partialClose" ? (
          <Field
            label="Lots to close"
            description={`Of ${position.volume} lots: at least ${position.volumeMin ?? "0.01"}, in steps of ${position.volumeStep ?? "0.01"}; the rest stays open.`}
            error={errors.volume}
          >
            <Input
              ref={firstField}
              value={volume}
              onChange={(e) => setVolume(e.target.value)}
              inputMode="decimal"
              autoComplete="off"
              placeholder={position.volumeMin ?? "0.01"}
              className="text-right tabular-nums"
            />
          </Field>
        ) : null}
        {step === "confirm" ? (
          <div role="group" aria-label="What will happen" className="grid gap-3 rounded-md border border-border bg-subtle/40 p-4 text-sm">
            <p className="font-medium">{confirmText(action, position, closing)}</p>
            <DescriptionList
              items={
                action === "modify"
                  ? [
                      { term: "Stop loss", value: `${formatPrice(position.sl, digits)} → ${formatPrice(stopValue(sl), digits)}` },
                      { term: "Take profit", value: `${formatPrice(position.tp, digits)} → ${formatPrice(stopValue(tp), digits)}` },
                    ]
                  : [
                      { term: "Lots closed", value: closing ?? "" },
                      { term: "Lots left open", value: remaining === null ? "none" : String(Number(remaining.toFixed(4))) },
                      { term: "Price now", value: formatPrice(position.currentPrice, digits) },
                    ]
              }
            />
          </div>
        ) : null}
        <SubmissionStatus phase={state.phase} error={state.error} />
      </form>
    </DialogContent>
  );
}

const stopText = (value: number | null) => (value === null || value === 0 ? "" : String(value));
const stopValue = (text: string) => (text.trim() === "" ? null : Number(text.trim()));
function stopProblem(text: string, name: string): string | null {
  const t = text.trim();
  if (t === "") return null;
  return /^\d+(\.\d+)?$/.test(t) && Number(t) > 0 ? null : `Enter the ${name} as a price such as 1.08350, or leave it empty for none.`;
}

function confirmText(action: PositionAction, p: PositionRow, closing: string | null): string {
  if (action === "modify") return `The stops of position ${p.id} (${p.side} ${p.volume} lots ${p.symbol}) change on the platform at once.`;
  if (action === "close") return `Position ${p.id} (${p.side} ${p.volume} lots ${p.symbol}) closes wholly at the market price.`;
  return `${closing} of the ${p.volume} lots of position ${p.id} (${p.side} ${p.symbol}) close at the market price; the rest stays open.`;
}

function confirmLabel(action: PositionAction, closing: string | null): string {
  if (action === "modify") return "Change stops";
  return action === "close" ? "Close position" : `Close ${closing} lots`;
}

function doneTitle(action: PositionAction): string {
  return action === "modify" ? "Stops changed" : action === "close" ? "Position closed" : "Position partly closed";
}

function doneText(action: PositionAction, p: PositionRow, r: PositionOperationResult): string {
  const digits = p.digits;
  if (action === "modify") return `Position ${p.id}: stop loss ${formatPrice(r.sl, digits)}, take profit ${formatPrice(r.tp, digits)}.`;
  const price = formatPrice(r.price, digits);
  if (action === "close") return `Position ${p.id}: ${r.closedVolume} lots ${p.symbol} closed at ${price}.`;
  const rest = r.position ? ` ${r.position.volume} lots stay open${r.position.id === p.id ? "" : ` as position ${r.position.id}`}.` : "";
  return `Position ${p.id}: ${r.closedVolume} lots ${p.symbol} closed at ${price}.${rest}`;
}
