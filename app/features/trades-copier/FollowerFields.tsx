import { Trash2 } from "lucide-react";
import type { ReactNode } from "react";
import type { FollowerSuspension } from "@core/schemas/copier";
import { Button } from "~/ui/Button";
import { useFormat } from "~/ui/format";
import { Field } from "~/ui/Field";
import { Input } from "~/ui/Input";
import { Select, type SelectOption } from "~/ui/Select";
import { Switch } from "~/ui/Switch";
import type { FieldErrors, FollowerDraft } from "./draft";
import { LoginInput } from "./LoginInput";

const VOLUME_MODES: SelectOption[] = [
  { value: "same", label: "Same as source" },
  { value: "multiplier", label: "Multiplier" },
  { value: "fixed", label: "Fixed lots" },
  { value: "equity", label: "Proportional to equity" },
  { value: "balance", label: "Proportional to balance" },
  { value: "riskPercent", label: "Risk percent" },
];
const VOLUME_VALUE_LABEL: Record<FollowerDraft["volumeMode"], string | null> = {
  same: null,
  multiplier: "Multiplier",
  fixed: "Lots",
  equity: "Factor",
  balance: "Factor",
  riskPercent: "Risk (% of equity)",
};
const RISK_ACTIONS: SelectOption[] = [
  { value: "off", label: "Off" },
  { value: "suspend", label: "Suspend the follower" },
  { value: "closeAndSuspend", label: "Close copies and suspend" },
];

function Group({ legend, children }: { legend: string; children: ReactNode }) {
  return (
    <fieldset className="grid gap-3 rounded-md border border-border p-3 sm:grid-cols-2 lg:grid-cols-3">
      <legend className="px-1 text-sm font-medium">{legend}</legend>
      {children}
    </fieldset>
  );
}

interface Props {
  index: number;
  draft: FollowerDraft;
  platforms: SelectOption[];
  errors: FieldErrors;
  disabled: boolean;
  onChange: (next: FollowerDraft) => void;
  onRemove?: () => void;
  /** The risk stop that suspended this follower (as saved), if any. */
  suspension?: FollowerSuspension;
  /** Resumes it (members with write access); absent for read-only members. */
  onResume?: () => void;
  resuming?: boolean;
}

/** What a suspended follower shows above its settings: why, since when, until when, and Resume. */
function SuspensionNotice({ suspension, onResume, resuming }: { suspension: FollowerSuspension; onResume?: () => void; resuming?: boolean }) {
  const format = useFormat();
  return (
    <div role="status" className="flex flex-wrap items-center gap-3 rounded-md border border-warning/50 bg-warning/10 p-3 text-sm">
      <p className="min-w-0 flex-1">
        <strong>Suspended</strong> since {format.dateTime(suspension.at)}: {suspension.reason}.{" "}
        {suspension.until
          ? `It copies again by itself at ${format.dateTime(suspension.until)} (the organization's next day), or when resumed.`
          : "It stays suspended until a member resumes it."}
      </p>
      {onResume ? (
        <Button size="sm" variant="secondary" onClick={onResume} loading={resuming}>
          Resume
        </Button>
      ) : null}
    </div>
  );
}

/** One follower of a link: its account and every setting of FollowerSettingsSchema, grouped as a dealer thinks of them. */
export function FollowerFields({ index, draft, platforms, errors, disabled, onChange, onRemove, suspension, onResume, resuming }: Props) {
  const err = (field: keyof FollowerDraft) => errors[`followers.${index}.${field}`];
  const set = <K extends keyof FollowerDraft>(field: K, value: FollowerDraft[K]) => onChange({ ...draft, [field]: value });
  const text = (field: keyof FollowerDraft, label: string, opts: { placeholder?: string; inputMode?: "decimal" | "numeric"; description?: string } = {}) => (
    <Field label={label} error={err(field)} description={opts.description}>
      <Input
        value={draft[field] as string}
        placeholder={opts.placeholder}
        inputMode={opts.inputMode}
        disabled={disabled}
        onChange={(e) => set(field, e.target.value as never)}
      />
    </Field>
  );
  const toggle = (field: keyof FollowerDraft, label: string) => (
    <Field label={label} error={err(field)}>
      <Switch checked={draft[field] as boolean} disabled={disabled} onCheckedChange={(v) => set(field, v as never)} />
    </Field>
  );
  const choose = (field: keyof FollowerDraft, label: string, options: SelectOption[]) => (
    <Field label={label} error={err(field)}>
      <Select value={draft[field] as string} disabled={disabled} options={options} onValueChange={(v) => set(field, v as never)} />
    </Field>
  );
  const valueLabel = VOLUME_VALUE_LABEL[draft.volumeMode];

  return (
    <section aria-label={`Follower ${index + 1}`} className="grid gap-3 rounded-lg border border-border bg-subtle/40 p-3">
      <div className="flex flex-wrap items-end gap-3">
        <h4 className="text-sm font-semibold">Follower {index + 1}</h4>
        {onRemove ? (
          <Button variant="ghost" size="sm" className="ml-auto" disabled={disabled} onClick={onRemove} aria-label={`Remove follower ${index + 1}`}>
            <Trash2 aria-hidden />
            Remove
          </Button>
        ) : null}
      </div>
      {suspension ? <SuspensionNotice suspension={suspension} onResume={onResume} resuming={resuming} /> : null}
      <div className="grid gap-3 sm:grid-cols-3">
        {choose("platformId", "Follower platform", platforms)}
        <Field label="Follower login" error={err("login")}>
          <LoginInput platformId={draft.platformId} value={draft.login} disabled={disabled} onChange={(login) => set("login", login)} placeholder="300001" />
        </Field>
        {toggle("enabled", "Follower enabled")}
      </div>
      <Group legend="Volume">
        {choose("volumeMode", "Volume mode", VOLUME_MODES)}
        {valueLabel ? text("volumeValue", valueLabel, { inputMode: "decimal" }) : null}
        {toggle("alignContractSize", "Align contract sizes")}
        {text("minLots", "Minimum lots", { inputMode: "decimal", placeholder: "none" })}
        {text("maxLots", "Maximum lots", { inputMode: "decimal", placeholder: "none" })}
        {toggle("forceMinimum", "Force the minimum")}
        {choose("direction", "Direction", [
          { value: "same", label: "Same" },
          { value: "reverse", label: "Reverse (SL and TP swap)" },
        ])}
      </Group>
      <Group legend="Symbols">
        <Field label="Symbol pairs" error={err("pairs")} description="One a line: SOURCE=FOLLOWER, used before prefix and suffix rules">
          <textarea
            className="min-h-16 w-full rounded-md border border-input bg-surface px-3 py-2 text-sm text-fg aria-[invalid=true]:border-danger"
            value={draft.pairs}
            disabled={disabled}
            onChange={(e) => set("pairs", e.target.value)}
          />
        </Field>
        {text("sourcePrefix", "Source prefix")}
        {text("sourceSuffix", "Source suffix")}
        {text("followerPrefix", "Follower prefix")}
        {text("followerSuffix", "Follower suffix", { placeholder: ".m" })}
        {text("allowedSymbols", "Allowed symbols", { placeholder: "all", description: "A mask such as EUR*,XAU*" })}
        {text("blockedSymbols", "Blocked symbols", { placeholder: "none" })}
      </Group>
      <Group legend="Stops and orders">
        {choose("stopsMode", "SL and TP", [
          { value: "copy", label: "Copy the source's" },
          { value: "none", label: "None" },
          { value: "fixed", label: "Fixed distance" },
        ])}
        {draft.stopsMode === "fixed" ? text("slPoints", "SL distance (points)", { inputMode: "numeric", placeholder: "none" }) : null}
        {draft.stopsMode === "fixed" ? text("tpPoints", "TP distance (points)", { inputMode: "numeric", placeholder: "none" }) : null}
        {toggle("copyPendingOrders", "Copy pending orders")}
        {toggle("copyPartialCloses", "Copy partial closes")}
        {toggle("copyExistingPositions", "Copy positions already open")}
      </Group>
      <Group legend="Timing">
        {text("maxDelaySeconds", "Maximum delay (s)", { inputMode: "numeric", placeholder: "none" })}
        {text("maxDeviationPoints", "Maximum price deviation (points)", { inputMode: "numeric", placeholder: "none" })}
      </Group>
      <Group legend="Risk">
        {choose("equityFloorAction", "Equity floor", RISK_ACTIONS)}
        {draft.equityFloorAction !== "off"
          ? text("equityFloorAmount", "Equity floor amount", {
              inputMode: "decimal",
              description:
                draft.equityFloorAction === "closeAndSuspend"
                  ? "Equity below it (checked every few seconds and before each new copy): the follower's copies are closed and it is suspended until a member resumes it."
                  : "Equity below it (checked every few seconds and before each new copy): the follower is suspended (no new copies; closes still copied) until a member resumes it.",
            })
          : null}
        {choose("dailyLossAction", "Daily loss limit", RISK_ACTIONS)}
        {draft.dailyLossAction !== "off"
          ? text("dailyLossAmount", "Daily loss amount", {
              inputMode: "decimal",
              description:
                (draft.dailyLossAction === "closeAndSuspend"
                  ? "Today's loss on the copies (closed today and open, in the organization's day) at or above it: the copies are closed and the follower is suspended"
                  : "Today's loss on the copies (closed today and open, in the organization's day) at or above it: the follower is suspended (no new copies; closes still copied)") +
                " until the next day, or until a member resumes it.",
            })
          : null}
        {toggle("closeOnly", "Close-only")}
      </Group>
    </section>
  );
}
