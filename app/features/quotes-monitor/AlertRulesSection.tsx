import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Trash2 } from "lucide-react";
import { useState, type FormEvent } from "react";
import { ALERT_KIND_LABELS, ALERT_KINDS, AlertRuleInputSchema, type AlertKind, type AlertRule, type QuotePlatform } from "@core/schemas/quotesMonitor";
import { NOTIFICATION_SEVERITIES } from "@core/notifications";
import { api } from "~/api";
import { useCurrentOrganizationId } from "~/profile";
import { Button } from "~/ui/Button";
import { Field } from "~/ui/Field";
import { FormAlert } from "~/ui/FormAlert";
import { Input } from "~/ui/Input";
import { Select } from "~/ui/Select";
import { Section } from "~/ui/Section";

const THRESHOLD_WORDS: Record<AlertKind, (r: AlertRule) => string> = {
  staleFeed: (r) => (r.kind === "staleFeed" ? `no tick for ${r.staleSeconds} s in session` : ""),
  spread: (r) =>
    r.kind === "spread"
      ? [r.spreadPoints !== null ? `above ${r.spreadPoints} points` : null, r.spreadTimesAverage !== null ? `above ${r.spreadTimesAverage}× its average` : null]
          .filter(Boolean)
          .join(" or ")
      : "",
  crossServer: (r) => (r.kind === "crossServer" ? `servers differ by more than ${r.differencePoints} points` : ""),
};

interface Draft {
  kind: AlertKind;
  name: string;
  symbolMask: string;
  severity: string;
  cooldownSeconds: string;
  staleSeconds: string;
  spreadPoints: string;
  spreadTimesAverage: string;
  differencePoints: string;
}

const EMPTY: Draft = {
  kind: "staleFeed",
  name: "",
  symbolMask: "*",
  severity: "warning",
  cooldownSeconds: "300",
  staleSeconds: "30",
  spreadPoints: "",
  spreadTimesAverage: "",
  differencePoints: "",
};

const num = (text: string) => (text.trim() === "" ? null : Number(text));

/** What the form sends: the same schema the API checks (core/schemas/quotesMonitor.ts), so the messages are the same. */
function inputOf(d: Draft) {
  const common = { kind: d.kind, name: d.name, symbolMask: d.symbolMask, severity: d.severity, cooldownSeconds: num(d.cooldownSeconds) ?? undefined };
  if (d.kind === "staleFeed") return { ...common, staleSeconds: num(d.staleSeconds) ?? undefined };
  if (d.kind === "spread") return { ...common, spreadPoints: num(d.spreadPoints), spreadTimesAverage: num(d.spreadTimesAverage) };
  return { ...common, differencePoints: num(d.differencePoints) ?? undefined };
}

/** The organization's alert rules: a list, and (with write access) a form to add one and a delete button on each. */
export function AlertRulesSection({ platforms, canWrite }: { platforms: QuotePlatform[]; canWrite: boolean }) {
  const organizationId = useCurrentOrganizationId();
  const queryClient = useQueryClient();
  const key = ["quotesMonitor", organizationId, "alertRules"];
  const rules = useQuery({ queryKey: key, queryFn: ({ signal }) => api.get<AlertRule[]>("/api/quotesMonitor/alert-rules", { signal }) });
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [error, setError] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: (body: unknown) => api.post<AlertRule>("/api/quotesMonitor/alert-rules", body),
    onSuccess: () => {
      setDraft(EMPTY);
      void queryClient.invalidateQueries({ queryKey: key });
    },
    onError: (e) => setError(e instanceof Error ? e.message : String(e)),
  });
  const remove = useMutation({
    mutationFn: (id: string) => api.del(`/api/quotesMonitor/alert-rules/${id}`),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: key }),
  });
  const set = (field: keyof Draft) => (value: string) => setDraft((d) => ({ ...d, [field]: value }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = AlertRuleInputSchema.safeParse(inputOf(draft));
    if (!parsed.success) {
      setError(parsed.error.issues.map((i) => i.message).join(". "));
      return;
    }
    setError(null);
    create.mutate(parsed.data);
  };
  const text = (field: keyof Draft, label: string, placeholder?: string) => (
    <Field label={label} className="w-40">
      <Input value={draft[field]} placeholder={placeholder} onChange={(e) => set(field)(e.target.value)} />
    </Field>
  );

  return (
    <Section title="Alert rules" description="Raised on the rows, to the inbox and to the notification channels; cleared when the condition ends.">
      {rules.data && rules.data.length > 0 ? (
        <ul className="grid gap-2 text-sm" aria-label="Alert rules">
          {rules.data.map((r) => (
            <li key={r.id} className="flex flex-wrap items-center gap-2">
              <span className="font-medium">{r.name}</span>
              <span className="text-muted">
                {ALERT_KIND_LABELS[r.kind]}: {THRESHOLD_WORDS[r.kind](r)}; symbols {r.symbolMask}; {r.severity}; cool-down {r.cooldownSeconds} s
                {r.platformIds === "all" ? "" : `; ${r.platformIds.map((id) => platforms.find((p) => p.id === id)?.name ?? id).join(", ")}`}
              </span>
              {canWrite ? (
                <Button variant="ghost" size="sm" aria-label={`Delete ${r.name}`} onClick={() => remove.mutate(r.id)}>
                  <Trash2 aria-hidden />
                </Button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-muted">No alert rule yet.</p>
      )}
      {canWrite ? (
        <form onSubmit={submit} className="mt-4 grid gap-3" aria-label="New alert rule">
          <div className="flex flex-wrap items-end gap-3">
            <Field label="Kind" className="w-52">
              <Select value={draft.kind} onValueChange={set("kind")} options={ALERT_KINDS.map((k) => ({ value: k, label: ALERT_KIND_LABELS[k] }))} />
            </Field>
            {text("name", "Name", "EURUSD silent")}
            {text("symbolMask", "Symbol mask", "*")}
            {draft.kind === "staleFeed" ? text("staleSeconds", "No tick for (s)") : null}
            {draft.kind === "spread" ? text("spreadPoints", "Above (points)") : null}
            {draft.kind === "spread" ? text("spreadTimesAverage", "Above × average") : null}
            {draft.kind === "crossServer" ? text("differencePoints", "Difference (points)") : null}
            <Field label="Severity" className="w-36">
              <Select value={draft.severity} onValueChange={set("severity")} options={NOTIFICATION_SEVERITIES.map((s) => ({ value: s, label: s }))} />
            </Field>
            {text("cooldownSeconds", "Cool-down (s)")}
            <Button type="submit" disabled={create.isPending}>
              Add rule
            </Button>
          </div>
          <FormAlert message={error} />
        </form>
      ) : null}
    </Section>
  );
}
