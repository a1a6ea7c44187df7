export { toast, useToastStore, type Toast, type ToastInput, type ToastColor, type ToastIcon } from "./store";
