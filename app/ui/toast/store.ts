import { create } from "zustand";

/** docs/requirements.md#r-constants toast constants. */
export const TOAST_QUEUE_CAP = 5;
export const TOAST_DURATION_MS = 5000;
export const TOAST_REMOVE_DELAY_MS = 200;
export const TOAST_SWIPE_THRESHOLD = 50;

export type ToastColor = "primary" | "success" | "info" | "warning" | "error" | "neutral";
/** Named icons the toaster knows how to draw. */
export type ToastIcon = "warning" | "error" | "success" | "info" | "refresh";

/** docs/requirements.md#r-entities toast: id, open, title, color, description, icon (+ an optional action). */
export interface Toast {
  id: string;
  open: boolean;
  title: string;
  color?: ToastColor;
  description?: string;
  icon?: ToastIcon;
  duration?: number;
  action?: { label: string; onClick: () => void };
}

export type ToastInput = Omit<Toast, "id" | "open"> & { id?: string };

interface ToastState {
  toasts: Toast[];
  add: (toast: ToastInput) => string;
  close: (id: string) => void;
  remove: (id: string) => void;
  clear: () => void;
}

let counter = 0;
const nextId = () => `toast-${++counter}`;

/**
 * The queue: toasts are added one at a time, at most 5 are kept (the oldest is dropped);
 * closing marks a toast closed and removes it 200 ms later (docs/requirements.md#r-states).
 */
export const useToastStore = create<ToastState>()((set, get) => ({
  toasts: [],
  add(input) {
    const toast: Toast = { ...input, id: input.id ?? nextId(), open: true };
    set((s) => ({ toasts: [...s.toasts.filter((t) => t.id !== toast.id), toast].slice(-TOAST_QUEUE_CAP) }));
    return toast.id;
  },
  close(id) {
    if (!get().toasts.some((t) => t.id === id && t.open)) return;
    set((s) => ({ toasts: s.toasts.map((t) => (t.id === id ? { ...t, open: false } : t)) }));
    setTimeout(() => get().remove(id), TOAST_REMOVE_DELAY_MS);
  },
  remove(id) {
    set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }));
  },
  clear() {
    set({ toasts: [] });
  },
}));

/** The one toast API: `toast({ title, description, color, icon })`. Works outside React too. */
export function toast(input: ToastInput): string {
  return useToastStore.getState().add(input);
}

/** How many toasters are on the page (normally one, the app's); none where a page has no toaster. */
let toasters = 0;

/** A toaster is on the page until the returned function is called. */
export function registerToaster(): () => void {
  toasters++;
  return () => {
    toasters--;
  };
}

/**
 * Resolves once the toasts waiting in the store are on screen (in the page and painted), or after
 * `waitMs`; at once when none is waiting, no toaster is on the page, or outside a browser. The toaster loads when first needed
 * (DeferredToaster.tsx) and Radix draws a toast one render after the toaster mounts, so a toast raised just before the
 * page leaves (the sign-in redirect's warning, docs/requirements.md#r-errors) waits here to be seen.
 */
export function toastsOnScreen(waitMs: number): Promise<void> {
  if (toasters === 0 || typeof document === "undefined" || useToastStore.getState().toasts.length === 0) return Promise.resolve();
  const deadline = performance.now() + waitMs;
  return new Promise<void>((resolve) => {
    const check = () => {
      if (document.querySelector("[data-toast]")) requestAnimationFrame(() => resolve());
      else if (performance.now() >= deadline) resolve();
      else requestAnimationFrame(check);
    };
    check();
  });
}
