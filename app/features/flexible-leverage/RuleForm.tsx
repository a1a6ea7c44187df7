import { Slot } from "@radix-ui/react-slot";
import { Plus, Trash2 } from "lucide-react";
import type { ReactNode } from "react";
import { LEVERAGE_MODES, WEEK_DAYS, type LeverageMode, type WeekDay } from "@core/flexibleLeverage/index";
import { Button } from "~/ui/Button";
import { Field } from "~/ui/Field";
import { Input } from "~/ui/Input";
import { Select } from "~/ui/Select";
import { Switch } from "~/ui/Switch";
import type { DraftRule, DraftTier, DraftWindow, Problems } from "./draft";

const MODE_LABELS: Record<LeverageMode, string> = {
  equity: "By equity (account currency)",
  exposureLots: "By open exposure in lots",
  exposureNotional: "By open exposure, notional in the account currency",
};
const DAY_OPTIONS = WEEK_DAYS.map((d) => ({ value: d, label: d[0]!.toUpperCase() + d.slice(1) }));

/**
 * One rule's form: name, active, masks, mode, the ladder as an editable table, time windows, maximum
 * leverage, whether existing positions count. Problems (the schema's messages) and warnings show
 * under the field they are about.
 */
export function RuleForm({
  rule,
  index,
  problems,
  warnings,
  disabled,
  onChange,
}: {
  rule: DraftRule;
  index: number;
  problems: Problems;
  warnings: Map<string, string[]>;
  disabled: boolean;
  onChange: (rule: DraftRule) => void;
}) {
  const at = (...path: (string | number)[]) => problems.get(["rules", index, ...path].join("."));
  const warned = (...path: (string | number)[]) => warnings.get(["rules", index, ...path].join("."));
  const set = <K extends keyof DraftRule>(key: K, value: DraftRule[K]) => onChange({ ...rule, [key]: value });
  const setTier = (t: number, patch: Partial<DraftTier>) =>
    set(
      "tiers",
      rule.tiers.map((tier, i) => (i === t ? { ...tier, ...patch } : tier)),
    );
  const setWindow = (w: number, patch: Partial<DraftWindow>) =>
    set(
      "windows",
      rule.windows.map((window, i) => (i === w ? ({ ...window, ...patch } as DraftWindow) : window)),
    );
  const unit = rule.mode === "exposureLots" ? "lots" : "in the account's currency";

  return (
    <fieldset className="grid gap-4" disabled={disabled} aria-label={`Rule ${index + 1}: ${rule.name}`}>
      <div className="grid gap-4 sm:grid-cols-[minmax(0,2fr)_auto]">
        <Field label="Name" error={at("name")}>
          <Input value={rule.name} onChange={(e) => set("name", e.target.value)} />
        </Field>
        <div className="flex items-center gap-2 self-end pb-2">
          <Switch id={`${rule.key}-active`} checked={rule.active} onCheckedChange={(on) => set("active", on)} disabled={disabled} />
          <label htmlFor={`${rule.key}-active`} className="text-sm">
            {rule.active ? "Active" : "Inactive (kept, never applies)"}
          </label>
        </div>
      </div>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field
          label="Groups"
          description='"*" any characters, "!" excludes (exclusions first), comma-separated'
          error={at("groups") ?? warned("groups")?.join(" ")}
        >
          <Input value={rule.groups} onChange={(e) => set("groups", e.target.value)} />
        </Field>
        <Field
          label="Symbols"
          description='A pattern with "\" reads the MT5 path ("Forex\*"); "*" for every symbol'
          error={at("symbols") ?? warned("symbols")?.join(" ")}
        >
          <Input value={rule.symbols} onChange={(e) => set("symbols", e.target.value)} />
        </Field>
        <Field label="Mode" error={at("mode")}>
          <Select
            options={LEVERAGE_MODES.map((m) => ({ value: m, label: MODE_LABELS[m] }))}
            value={rule.mode}
            onValueChange={(v) => set("mode", v as LeverageMode)}
            disabled={disabled}
          />
        </Field>
        <Field
          label="Maximum leverage"
          description="The rule's cap (1:300 is 300); empty for none. The group's default leverage always caps."
          error={at("maxLeverage")}
        >
          <Input inputMode="numeric" value={rule.maxLeverage} onChange={(e) => set("maxLeverage", e.target.value)} />
        </Field>
      </div>
      <div className="flex items-center gap-2">
        <Switch
          id={`${rule.key}-existing`}
          checked={rule.countExistingPositions}
          onCheckedChange={(on) => set("countExistingPositions", on)}
          disabled={disabled}
        />
        <label htmlFor={`${rule.key}-existing`} className="text-sm">
          {rule.countExistingPositions ? "Positions opened before the rules changed count" : "Only positions opened after the rules changed count"}
        </label>
      </div>

      <Table
        caption={`Ladder: the highest tier reached gives the leverage (thresholds ${unit}, strictly ascending)`}
        problem={at("tiers")}
        head={["Threshold ≥", "Leverage 1:", ""]}
      >
        {rule.tiers.map((tier, t) => (
          <tr key={t} className="align-top">
            <td className="py-1 pr-2">
              <Cell label={`Tier ${t + 1} threshold`} error={at("tiers", t, "threshold") ?? at("tiers", t)}>
                <Input inputMode="decimal" value={tier.threshold} onChange={(e) => setTier(t, { threshold: e.target.value })} />
              </Cell>
            </td>
            <td className="py-1 pr-2">
              <Cell label={`Tier ${t + 1} leverage`} error={at("tiers", t, "leverage") ?? warned("tiers", t, "leverage")?.join(" ")}>
                <Input inputMode="numeric" value={tier.leverage} onChange={(e) => setTier(t, { leverage: e.target.value })} />
              </Cell>
            </td>
            <td className="py-1">
              <Button
                variant="ghost"
                size="icon"
                aria-label={`Remove tier ${t + 1}`}
                onClick={() =>
                  set(
                    "tiers",
                    rule.tiers.filter((_, i) => i !== t),
                  )
                }
              >
                <Trash2 aria-hidden />
              </Button>
            </td>
          </tr>
        ))}
      </Table>
      {!disabled ? (
        <Button
          variant="secondary"
          size="sm"
          className="justify-self-start"
          onClick={() => set("tiers", [...rule.tiers, { threshold: "", leverage: rule.tiers.at(-1)?.leverage ?? "100" }])}
        >
          <Plus aria-hidden /> Add a tier
        </Button>
      ) : null}

      <div className="grid gap-2">
        <p className="text-sm font-medium">Time windows (the server's clock): while one is open, its leverage applies instead of the ladder</p>
        {rule.windows.length === 0 ? <p className="text-sm text-muted">No window.</p> : null}
        {rule.windows.map((w, i) => (
          <div key={i} className="grid gap-2 rounded-md border border-border p-3 sm:grid-cols-6">
            {w.kind === "weekend" ? (
              <>
                <Cell label={`Window ${i + 1} from day`}>
                  <Select options={DAY_OPTIONS} value={w.fromDay} onValueChange={(v) => setWindow(i, { fromDay: v as WeekDay })} disabled={disabled} />
                </Cell>
                <Cell label={`Window ${i + 1} from time`} error={at("windows", i, "from", "time")}>
                  <Input value={w.fromTime} placeholder="21:00" onChange={(e) => setWindow(i, { fromTime: e.target.value })} />
                </Cell>
                <Cell label={`Window ${i + 1} to day`}>
                  <Select options={DAY_OPTIONS} value={w.toDay} onValueChange={(v) => setWindow(i, { toDay: v as WeekDay })} disabled={disabled} />
                </Cell>
                <Cell label={`Window ${i + 1} to time`} error={at("windows", i, "to", "time") ?? at("windows", i, "to")}>
                  <Input value={w.toTime} placeholder="21:00" onChange={(e) => setWindow(i, { toTime: e.target.value })} />
                </Cell>
              </>
            ) : (
              <>
                <Cell label={`Window ${i + 1} news name`} error={at("windows", i, "name")}>
                  <Input value={w.name} placeholder="NFP" onChange={(e) => setWindow(i, { name: e.target.value })} />
                </Cell>
                <Cell label={`Window ${i + 1} date`} error={at("windows", i, "date")}>
                  <Input value={w.date} placeholder="2026-12-04" onChange={(e) => setWindow(i, { date: e.target.value })} />
                </Cell>
                <Cell label={`Window ${i + 1} time`} error={at("windows", i, "time")}>
                  <Input value={w.time} placeholder="13:30" onChange={(e) => setWindow(i, { time: e.target.value })} />
                </Cell>
                <Cell label={`Window ${i + 1} minutes`} error={at("windows", i, "durationMinutes")}>
                  <Input inputMode="numeric" value={w.duration} onChange={(e) => setWindow(i, { duration: e.target.value })} />
                </Cell>
              </>
            )}
            <Cell
              label={`Window ${i + 1} leverage 1:`}
              error={at("windows", i, "leverage") ?? warned("windows", i, "leverage")?.join(" ") ?? warned("windows", i)?.join(" ")}
            >
              <Input inputMode="numeric" value={w.leverage} onChange={(e) => setWindow(i, { leverage: e.target.value })} />
            </Cell>
            <div className="flex items-end">
              <Button
                variant="ghost"
                size="icon"
                aria-label={`Remove window ${i + 1}`}
                onClick={() =>
                  set(
                    "windows",
                    rule.windows.filter((_, j) => j !== i),
                  )
                }
              >
                <Trash2 aria-hidden />
              </Button>
            </div>
          </div>
        ))}
        {!disabled ? (
          <div className="flex gap-2">
            <Button
              variant="secondary"
              size="sm"
              onClick={() =>
                set("windows", [...rule.windows, { kind: "weekend", fromDay: "friday", fromTime: "21:00", toDay: "sunday", toTime: "21:00", leverage: "100" }])
              }
            >
              <Plus aria-hidden /> Weekend window
            </Button>
            <Button
              variant="secondary"
              size="sm"
              onClick={() => set("windows", [...rule.windows, { kind: "news", name: "", date: "", time: "", duration: "60", leverage: "50" }])}
            >
              <Plus aria-hidden /> News window
            </Button>
          </div>
        ) : null}
      </div>
    </fieldset>
  );
}

function Table({ caption, head, problem, children }: { caption: string; head: string[]; problem: string | undefined; children: ReactNode }) {
  return (
    <div className="grid gap-1">
      <table className="w-full max-w-xl text-sm">
        <caption className="mb-1 text-left text-sm font-medium">{caption}</caption>
        <thead>
          <tr className="text-left text-xs text-muted">
            {head.map((h, i) => (
              <th key={i} className="pb-1 font-medium">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
      {problem ? <p className="text-xs font-medium text-danger">{problem}</p> : null}
    </div>
  );
}

/** A control with an accessible name and its error under it (table cells and window fields have no visible label of their own). */
function Cell({ label, error, children }: { label: string; error?: string | undefined; children: ReactNode }) {
  return (
    <div className="grid gap-1">
      <Slot aria-label={label} aria-invalid={error ? true : undefined}>
        {children}
      </Slot>
      {error ? <p className="text-xs font-medium text-danger">{error}</p> : null}
    </div>
  );
}
