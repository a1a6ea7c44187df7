import type { MarginState } from "@core/trading/account";
import { Badge } from "~/ui/Badge";

const MARGIN_STATE: Record<MarginState, { label: string; tone: "neutral" | "warning" | "danger" }> = {
  ok: { label: "OK", tone: "neutral" },
  marginCall: { label: "Margin call", tone: "warning" },
  stopOut: { label: "Stop out", tone: "danger" },
};

export function MarginStateBadge({ state }: { state: MarginState | null | undefined }) {
  if (!state) return null;
  const s = MARGIN_STATE[state] ?? MARGIN_STATE.ok;
  return <Badge tone={s.tone}>{s.label}</Badge>;
}

export const marginStateLabel = (state: MarginState | null | undefined) => (state ? (MARGIN_STATE[state]?.label ?? state) : "");

/** Can log in, can trade: the two switches a dealer checks first. */
export function AccountStateBadges({ enabled, readOnly }: { enabled: boolean; readOnly: boolean }) {
  if (!enabled) return <Badge tone="danger">Disabled</Badge>;
  if (readOnly) return <Badge tone="warning">Trading off</Badge>;
  return <Badge tone="success">Active</Badge>;
}

export const accountStateLabel = (a: { enabled: boolean; readOnly: boolean }) => (!a.enabled ? "Disabled" : a.readOnly ? "Trading off" : "Active");
