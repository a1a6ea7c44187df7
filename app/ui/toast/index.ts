/** The one toast API: `toast({ title, description, color, icon, action })`, drawn by <Toaster />. */
export { toast, toastsOnScreen, useToastStore, type Toast, type ToastInput, type ToastColor, type ToastIcon } from "./store";
export { DeferredToaster as Toaster } from "./DeferredToaster";
