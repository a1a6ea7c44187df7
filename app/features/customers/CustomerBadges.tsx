import type { Customer } from "@core/schemas/customers";
import { Badge } from "~/ui/Badge";

const TONES = { lead: "info", active: "success", blocked: "danger" } as const;
const LABELS = { lead: "Lead", active: "Active", blocked: "Blocked" } as const;
export const statusLabel = (status: Customer["status"]) => LABELS[status];

export function CustomerStatusBadge({ status }: { status: Customer["status"] }) {
  return <Badge tone={TONES[status]}>{LABELS[status]}</Badge>;
}
