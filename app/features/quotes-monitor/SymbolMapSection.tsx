import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Trash2 } from "lucide-react";
import { useId, useState, type FormEvent } from "react";
import { SymbolMapSchema, type SymbolMap } from "@core/schemas/quoteComparison";
import type { QuotePlatform } from "@core/schemas/quotesMonitor";
import { api } from "~/api";
import { useCurrentOrganizationId } from "~/profile";
import { Button } from "~/ui/Button";
import { Field } from "~/ui/Field";
import { FormAlert } from "~/ui/FormAlert";
import { Input } from "~/ui/Input";
import { Label } from "~/ui/Label";
import { Section } from "~/ui/Section";
import { Select } from "~/ui/Select";
import { Switch } from "~/ui/Switch";

const list = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * The organization's symbol map (core/schemas/quoteComparison.ts): the prefixes and suffixes
 * stripped, and explicit pairs (a platform's symbol → an instrument). Read for everyone who sees
 * the monitor; changed with its write access, checked with the API's own schema before sending.
 */
export function SymbolMapSection({ platforms, canWrite }: { platforms: QuotePlatform[]; canWrite: boolean }) {
  const organizationId = useCurrentOrganizationId();
  const queryClient = useQueryClient();
  const key = ["quotesMonitor", organizationId, "symbolMap"];
  const map = useQuery({ queryKey: key, queryFn: ({ signal }) => api.get<SymbolMap>("/api/quotesMonitor/symbol-map", { signal }) });
  // What the member typed, over what is stored (null: not changed here).
  const [prefixesDraft, setPrefixes] = useState<string | null>(null);
  const [suffixesDraft, setSuffixes] = useState<string | null>(null);
  const [stripDraft, setStrip] = useState<boolean | null>(null);
  const prefixes = prefixesDraft ?? map.data?.prefixes.join(", ") ?? "";
  const suffixes = suffixesDraft ?? map.data?.suffixes.join(", ") ?? "";
  const strip = stripDraft ?? map.data?.stripAfterSeparator ?? true;
  const pairs = map.data?.pairs ?? [];
  const [draft, setDraft] = useState({ platformId: platforms[0]?.id ?? "", symbol: "", instrument: "" });
  const [error, setError] = useState<string | null>(null);
  const stripId = useId();
  const save = useMutation({
    mutationFn: (body: SymbolMap) => api.put<SymbolMap>("/api/quotesMonitor/symbol-map", body),
    onSuccess: (saved) => {
      queryClient.setQueryData(key, saved);
      setPrefixes(null);
      setSuffixes(null);
      setStrip(null);
      // The comparison's live stream brings the regrouped rows (the monitor reads the map at once).
    },
    onError: (e) => setError(e instanceof Error ? e.message : String(e)),
  });
  const send = (nextPairs: SymbolMap["pairs"]) => {
    const parsed = SymbolMapSchema.safeParse({ prefixes: list(prefixes), suffixes: list(suffixes), stripAfterSeparator: strip, pairs: nextPairs });
    if (!parsed.success) {
      setError(parsed.error.issues.map((i) => i.message).join(". "));
      return;
    }
    setError(null);
    save.mutate(parsed.data);
  };
  const addPair = (event: FormEvent) => {
    event.preventDefault();
    send([...pairs, { platformId: draft.platformId, symbol: draft.symbol.trim(), instrument: draft.instrument.trim() }]);
    setDraft((d) => ({ ...d, symbol: "", instrument: "" }));
  };
  const platformName = (id: string) => platforms.find((p) => p.id === id)?.name ?? "a platform no longer on the monitor";

  return (
    <Section
      title="Symbol mapping"
      description="Which symbols are one instrument across servers: the same name once the prefixes and suffixes below (and, if on, anything after . _ - # + !) are stripped, or an explicit pair."
    >
      <form
        className="flex flex-wrap items-end gap-3"
        aria-label="Prefixes and suffixes"
        onSubmit={(e) => {
          e.preventDefault();
          send(pairs);
        }}
      >
        <Field label="Prefixes stripped" className="w-48">
          <Input value={prefixes} disabled={!canWrite} placeholder="#, fx" onChange={(e) => setPrefixes(e.target.value)} />
        </Field>
        <Field label="Suffixes stripped" className="w-48">
          <Input value={suffixes} disabled={!canWrite} placeholder="m, .pro" onChange={(e) => setSuffixes(e.target.value)} />
        </Field>
        <div className="flex items-center gap-2 self-end pb-2 text-sm">
          <Switch id={stripId} checked={strip} disabled={!canWrite} onCheckedChange={setStrip} />
          <Label htmlFor={stripId}>Drop what follows a separator</Label>
        </div>
        {canWrite ? (
          <Button type="submit" variant="secondary" disabled={save.isPending}>
            Save mapping
          </Button>
        ) : null}
      </form>
      {pairs.length > 0 ? (
        <ul className="mt-4 grid gap-1 text-sm" aria-label="Symbol pairs">
          {pairs.map((p) => (
            <li key={`${p.platformId}:${p.symbol}`} className="flex items-center gap-2">
              <span>
                {p.symbol} on {platformName(p.platformId)} is <span className="font-medium">{p.instrument}</span>
              </span>
              {canWrite ? (
                <Button
                  variant="ghost"
                  size="sm"
                  aria-label={`Remove the pair of ${p.symbol} on ${platformName(p.platformId)}`}
                  onClick={() => send(pairs.filter((o) => o !== p))}
                >
                  <Trash2 aria-hidden />
                </Button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="mt-4 text-sm text-muted">No explicit pair: symbols are matched by name.</p>
      )}
      {canWrite ? (
        <form onSubmit={addPair} className="mt-4 flex flex-wrap items-end gap-3" aria-label="New symbol pair">
          <Field label="Platform" className="w-48">
            <Select
              value={draft.platformId}
              onValueChange={(platformId) => setDraft((d) => ({ ...d, platformId }))}
              options={platforms.map((p) => ({ value: p.id, label: p.name }))}
            />
          </Field>
          <Field label="Its symbol" className="w-40">
            <Input value={draft.symbol} placeholder="GOLD.r" onChange={(e) => setDraft((d) => ({ ...d, symbol: e.target.value }))} />
          </Field>
          <Field label="Is the instrument" className="w-40">
            <Input value={draft.instrument} placeholder="XAUUSD" onChange={(e) => setDraft((d) => ({ ...d, instrument: e.target.value }))} />
          </Field>
          <Button type="submit" disabled={save.isPending}>
            Add pair
          </Button>
        </form>
      ) : null}
      <FormAlert message={error} />
    </Section>
  );
}
