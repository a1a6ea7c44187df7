import { useId, useState, type FormEvent, type ReactNode } from "react";
import { ApiError } from "~/api";
import { FormAlert } from "~/ui/FormAlert";
import { Button, type ButtonProps } from "~/ui/Button";
import { DialogClose, DialogContent, DialogRoot, DialogTrigger } from "~/ui/Dialog";

interface ActionDialogProps {
  trigger: ReactNode;
  triggerVariant?: ButtonProps["variant"];
  title: string;
  description?: ReactNode;
  submitLabel: string;
  /** Checks the fields; a message stops the submission and is shown. */
  validate?: () => string | null;
  /** Resolves when done (the dialog closes); rejects with an ApiError to show its message. */
  onSubmit: () => Promise<void>;
  /** Called when the dialog opens, to start from fresh values. */
  onOpen?: () => void;
  children: ReactNode;
  disabled?: boolean;
}

/** The shape every account action shares: a button, a modal form, the API's refusal shown inline. */
export function ActionDialog({
  trigger,
  triggerVariant = "secondary",
  title,
  description,
  submitLabel,
  validate,
  onSubmit,
  onOpen,
  children,
  disabled,
}: ActionDialogProps) {
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const formId = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (pending) return;
    const problem = validate?.() ?? null;
    setError(problem);
    if (problem) return;
    setPending(true);
    try {
      await onSubmit();
      setOpen(false);
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) return;
      setError(e instanceof ApiError && e.status ? e.message : "Toolbox's service did not answer. Try again in a moment.");
    } finally {
      setPending(false);
    }
  }

  return (
    <DialogRoot
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        setError(null);
        if (next) onOpen?.();
      }}
    >
      <DialogTrigger asChild>
        <Button variant={triggerVariant} size="sm" disabled={disabled}>
          {trigger}
        </Button>
      </DialogTrigger>
      <DialogContent
        title={title}
        description={description}
        footer={
          <>
            <DialogClose asChild>
              <Button variant="secondary">Cancel</Button>
            </DialogClose>
            <Button type="submit" form={formId} loading={pending}>
              {submitLabel}
            </Button>
          </>
        }
      >
        <form id={formId} onSubmit={submit} noValidate className="grid gap-4">
          {children}
          <FormAlert message={error} />
        </form>
      </DialogContent>
    </DialogRoot>
  );
}
