import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Trash2 } from "lucide-react";
import { useState, type FormEvent } from "react";
import { HolidaysSchema, type Holiday } from "@core/schemas/quoteHolidays";
import { api } from "~/api";
import { useCurrentOrganizationId } from "~/profile";
import { Button } from "~/ui/Button";
import { Field } from "~/ui/Field";
import { FormAlert } from "~/ui/FormAlert";
import { Input } from "~/ui/Input";
import { Section } from "~/ui/Section";

/**
 * The organization's market holidays (core/schemas/quoteHolidays.ts): on such a server-local date
 * the symbols of the mask show `holiday`, are never called stale and are not compared. Changed
 * with the monitor's write access, the whole list each time, checked with the API's schema first.
 */
export function HolidaysSection({ canWrite }: { canWrite: boolean }) {
  const organizationId = useCurrentOrganizationId();
  const queryClient = useQueryClient();
  const key = ["quotesMonitor", organizationId, "holidays"];
  const holidays = useQuery({ queryKey: key, queryFn: ({ signal }) => api.get<{ holidays: Holiday[] }>("/api/quotesMonitor/holidays", { signal }) });
  const [draft, setDraft] = useState({ date: "", name: "", symbolMask: "*" });
  const [error, setError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (body: { holidays: Holiday[] }) => api.put<{ holidays: Holiday[] }>("/api/quotesMonitor/holidays", body),
    onSuccess: (saved) => {
      queryClient.setQueryData(key, saved);
      setDraft({ date: "", name: "", symbolMask: "*" });
    },
    onError: (e) => setError(e instanceof Error ? e.message : String(e)),
  });
  const list = holidays.data?.holidays ?? [];
  const send = (next: unknown[]) => {
    const parsed = HolidaysSchema.safeParse({ holidays: next });
    if (!parsed.success) {
      setError(parsed.error.issues.map((i) => i.message).join(". "));
      return;
    }
    setError(null);
    save.mutate(parsed.data);
  };
  const add = (event: FormEvent) => {
    event.preventDefault();
    send([...list, draft]);
  };

  return (
    <Section title="Market holidays" description="Server-local dates on which the symbols of a mask do not trade: shown as holiday, never as a stale feed.">
      {list.length > 0 ? (
        <ul className="grid gap-1 text-sm" aria-label="Holidays">
          {list.map((h) => (
            <li key={`${h.date}|${h.symbolMask}`} className="flex items-center gap-2">
              <span className="tabular-nums">{h.date}</span>
              <span className="font-medium">{h.name}</span>
              <span className="text-muted">symbols {h.symbolMask}</span>
              {canWrite ? (
                <Button variant="ghost" size="sm" aria-label={`Remove ${h.name} on ${h.date}`} onClick={() => send(list.filter((o) => o !== h))}>
                  <Trash2 aria-hidden />
                </Button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-muted">No holiday: the symbols' weekly sessions alone say when markets are open.</p>
      )}
      {canWrite ? (
        <form onSubmit={add} className="mt-4 flex flex-wrap items-end gap-3" aria-label="New holiday">
          <Field label="Date" className="w-44">
            <Input type="date" value={draft.date} onChange={(e) => setDraft((d) => ({ ...d, date: e.target.value }))} />
          </Field>
          <Field label="Holiday" className="w-48">
            <Input value={draft.name} placeholder="Christmas" onChange={(e) => setDraft((d) => ({ ...d, name: e.target.value }))} />
          </Field>
          <Field label="Symbols closed" className="w-48">
            <Input value={draft.symbolMask} placeholder="*" onChange={(e) => setDraft((d) => ({ ...d, symbolMask: e.target.value }))} />
          </Field>
          <Button type="submit" disabled={save.isPending}>
            Add holiday
          </Button>
        </form>
      ) : null}
      <FormAlert message={error} />
    </Section>
  );
}
