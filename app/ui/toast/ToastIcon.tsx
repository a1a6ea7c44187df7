import { CircleCheck, CircleX, Info, RefreshCw, TriangleAlert, type LucideIcon } from "lucide-react";
import type { ToastColor, ToastIcon } from "./store";

const icons: Record<ToastIcon, LucideIcon> = {
  warning: TriangleAlert,
  error: CircleX,
  success: CircleCheck,
  info: Info,
  refresh: RefreshCw,
};

/** A toast without an explicit icon gets the one of its colour. */
const byColor: Partial<Record<ToastColor, ToastIcon>> = {
  warning: "warning",
  error: "error",
  success: "success",
  info: "info",
  primary: "success",
};

export function ToastIconView({ icon, color }: { icon?: ToastIcon; color: ToastColor }) {
  const name = icon ?? byColor[color];
  if (!name) return null;
  const Icon = icons[name];
  return <Icon aria-hidden className="mt-0.5 size-5 shrink-0 text-(--tb-toast-icon)" />;
}
