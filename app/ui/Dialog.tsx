import * as DialogPrimitive from "@radix-ui/react-dialog";
import { X } from "lucide-react";
import type { ReactNode, RefObject } from "react";
import { cn, focusRing } from "./cn";

export const DialogRoot = DialogPrimitive.Root;
export const DialogTrigger = DialogPrimitive.Trigger;
export const DialogClose = DialogPrimitive.Close;

interface DialogContentProps {
  title: ReactNode;
  description?: ReactNode;
  /** Buttons at the bottom right (e.g. Cancel, Confirm). */
  footer?: ReactNode;
  className?: string;
  children?: ReactNode;
  /**
   * The field to focus on opening, when it is not the first focusable element (which Radix
   * focuses by default). Ignored while it is disabled.
   */
  initialFocus?: RefObject<HTMLElement | null>;
}

/**
 * A modal window: focus is trapped inside, Escape and the close button dismiss it, the title and
 * description are announced when it opens.
 */
export function DialogContent({ title, description, footer, className, children, initialFocus }: DialogContentProps) {
  return (
    <DialogPrimitive.Portal>
      <DialogPrimitive.Overlay className="tb-overlay fixed inset-0 z-50 bg-black/50 backdrop-blur-[1px]" />
      <DialogPrimitive.Content
        className={cn(
          "tb-pop fixed top-1/2 left-1/2 z-50 grid max-h-[calc(100dvh-2rem)] w-[calc(100vw-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 gap-4 overflow-y-auto",
          "rounded-lg border border-border bg-surface p-6 text-fg shadow-xl outline-none",
          className,
        )}
        {...(description ? {} : { "aria-describedby": undefined })}
        onOpenAutoFocus={(event) => {
          const target = initialFocus?.current;
          if (!target || target.matches(":disabled")) return;
          event.preventDefault();
          target.focus();
        }}
      >
        <div className="grid gap-1.5 pr-6">
          <DialogPrimitive.Title className="text-lg font-semibold leading-tight">{title}</DialogPrimitive.Title>
          {description ? <DialogPrimitive.Description className="text-sm text-muted">{description}</DialogPrimitive.Description> : null}
        </div>
        {children}
        {footer ? <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">{footer}</div> : null}
        <DialogPrimitive.Close className={cn("absolute top-4 right-4 rounded-sm p-1 text-muted hover:bg-subtle hover:text-fg", focusRing)} aria-label="Close">
          <X aria-hidden className="size-4" />
        </DialogPrimitive.Close>
      </DialogPrimitive.Content>
    </DialogPrimitive.Portal>
  );
}
