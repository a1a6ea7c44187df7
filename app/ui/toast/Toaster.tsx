import * as ToastPrimitive from "@radix-ui/react-toast";
import { X } from "lucide-react";
import { cn, focusRing } from "../cn";
import { TOAST_DURATION_MS, TOAST_SWIPE_THRESHOLD, useToastStore, type Toast, type ToastColor } from "./store";
import { ToastIconView } from "./ToastIcon";

const accents: Record<ToastColor, string> = {
  primary: "border-l-primary [--tb-toast-icon:var(--tb-primary)]",
  success: "border-l-success [--tb-toast-icon:var(--tb-primary)]",
  info: "border-l-info [--tb-toast-icon:var(--tb-info)]",
  warning: "border-l-warning [--tb-toast-icon:var(--tb-warning)]",
  error: "border-l-danger [--tb-toast-icon:var(--tb-danger)]",
  neutral: "border-l-border [--tb-toast-icon:var(--tb-muted)]",
};

/**
 * Draws the toast queue of ./store with Radix Toast: bottom-right, 5000 ms, swipe right past 50 px
 * to dismiss, paused while hovered or focused, F8 jumps to the region, and every toast is announced
 * (errors and warnings assertively).
 */
export function Toaster() {
  const toasts = useToastStore((s) => s.toasts);
  return (
    <ToastPrimitive.Provider duration={TOAST_DURATION_MS} swipeDirection="right" swipeThreshold={TOAST_SWIPE_THRESHOLD} label="Notification">
      {toasts.map((t) => (
        <ToastItem key={t.id} toast={t} />
      ))}
      <ToastPrimitive.Viewport className="fixed right-0 bottom-0 z-[100] m-0 flex w-full max-w-sm list-none flex-col gap-2 p-4 outline-none sm:max-w-md" />
    </ToastPrimitive.Provider>
  );
}

function ToastItem({ toast: t }: { toast: Toast }) {
  const close = useToastStore((s) => s.close);
  const color = t.color ?? "neutral";
  const urgent = color === "error" || color === "warning";
  return (
    <ToastPrimitive.Root
      open={t.open}
      onOpenChange={(open) => (open ? undefined : close(t.id))}
      duration={t.duration}
      type={urgent ? "foreground" : "background"}
      data-toast={color}
      className={cn(
        "tb-toast pointer-events-auto relative flex w-full items-start gap-3 rounded-lg border border-l-4 border-border bg-surface p-4 pr-10 text-fg shadow-lg",
        accents[color],
      )}
    >
      <ToastIconView icon={t.icon} color={color} />
      <div className="grid min-w-0 flex-1 gap-1">
        <ToastPrimitive.Title className="text-sm font-semibold">{t.title}</ToastPrimitive.Title>
        {t.description ? <ToastPrimitive.Description className="text-sm break-words text-muted">{t.description}</ToastPrimitive.Description> : null}
        {t.action ? (
          <ToastPrimitive.Action
            altText={t.action.label}
            onClick={t.action.onClick}
            className={cn(
              "mt-2 inline-flex h-7 w-fit items-center rounded-md bg-primary px-3 text-xs font-medium text-primary-foreground hover:bg-primary-hover",
              focusRing,
            )}
          >
            {t.action.label}
          </ToastPrimitive.Action>
        ) : null}
      </div>
      <ToastPrimitive.Close aria-label="Close" className={cn("absolute top-3 right-3 rounded-sm p-1 text-muted hover:bg-subtle hover:text-fg", focusRing)}>
        <X aria-hidden className="size-4" />
      </ToastPrimitive.Close>
    </ToastPrimitive.Root>
  );
}
