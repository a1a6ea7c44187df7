import { ArrowDown, ArrowUp, Gauge, GripVertical, Plus, Trash2 } from "lucide-react";
import { useEffect, useMemo, useRef, useState, type DragEvent, type KeyboardEvent } from "react";
import { encodeRulesText } from "@core/flexibleLeverage/parameters";
import type { FlexibleLeveragePreviewBody, FlexibleLeverageView } from "@core/schemas/flexibleLeverage";
import { ApiError } from "~/api";
import { useAccess } from "~/profile";
import { Badge } from "~/ui/Badge";
import { Button } from "~/ui/Button";
import { cn, focusRing } from "~/ui/cn";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "~/ui/Card";
import { EmptyState } from "~/ui/EmptyState";
import { Field } from "~/ui/Field";
import { FormAlert } from "~/ui/FormAlert";
import { Input } from "~/ui/Input";
import { Skeleton } from "~/ui/Skeleton";
import { Switch } from "~/ui/Switch";
import { useFormat } from "~/ui/format";
import { toast } from "~/ui/toast";
import { draftOf, move, newRule, ruleHasProblem, validate, type Draft } from "./draft";
import { useFlexibleLeverage, useFlexibleLeverageHistory, useFlexibleLeveragePreview, useSaveFlexibleLeverage } from "./flexibleLeverageApi";
import { PreviewGrid } from "./PreviewGrid";
import { RuleForm } from "./RuleForm";

const PAGE = 100;
const rulesText = (n: number) => `${n} ${n === 1 ? "rule" : "rules"}`;

/** Waits until `value` has stayed the same for `ms` (the preview is asked once typing pauses). */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * The Flexible Leverage editor (docs/flexible-leverage.md): the plugin's ordered rules, a form per
 * rule with its ladder, the schema's messages and the server's warnings, and a live preview of
 * every account of the server under the rules as drafted (search by login, "what if" a time or an
 * equity) before Save writes them into the plugin.
 */
export function FlexibleLeverageEditor({ platformId, pluginId }: { platformId: string; pluginId: string }) {
  const view = useFlexibleLeverage(platformId, pluginId);
  if (view.isPending) return <Skeleton className="h-96" />;
  if (view.isError)
    return (
      <EmptyState
        icon={Gauge}
        title="The plugin's settings could not be read"
        description={view.error.message || "The trading server did not answer. Try again in a moment."}
      />
    );
  return <Editor key={JSON.stringify(view.data.settings)} platformId={platformId} pluginId={pluginId} view={view.data} />;
}

function Editor({ platformId, pluginId, view }: { platformId: string; pluginId: string; view: FlexibleLeverageView }) {
  const canWrite = useAccess().hasModule("plugins", "write");
  const [draft, setDraft] = useState<Draft>(() => draftOf(view.settings));
  const [selected, setSelected] = useState(0);
  const [failure, setFailure] = useState<string | null>(null);
  const [login, setLogin] = useState("");
  const [whatIfTime, setWhatIfTime] = useState("");
  const [whatIfEquity, setWhatIfEquity] = useState("");
  const [onlyChanged, setOnlyChanged] = useState(false);
  const [page, setPage] = useState(0);
  const save = useSaveFlexibleLeverage(platformId, pluginId);
  const history = useFlexibleLeverageHistory(platformId, pluginId);
  const format = useFormat();

  const { settings, problems } = useMemo(() => validate(draft), [draft]);
  // The room the rules take in the plugin's parameters (MT4 keeps 31 of 127 characters for them).
  const used = useMemo(() => (settings ? encodeRulesText(settings).length : view.capacity.used), [settings, view.capacity.used]);
  const dirty = useMemo(
    () =>
      JSON.stringify(draftOf(view.settings).rules.map(({ key: _, ...r }) => r)) !== JSON.stringify(draft.rules.map(({ key: _, ...r }) => r)) ||
      draftOf(view.settings).managers !== draft.managers,
    [draft, view.settings],
  );
  const equityNumber = whatIfEquity.trim() === "" ? undefined : Number(whatIfEquity.replace(/[\s,_]/g, ""));
  const body = useMemo<FlexibleLeveragePreviewBody | null>(
    () =>
      settings
        ? {
            settings,
            ...(whatIfTime || (equityNumber !== undefined && Number.isFinite(equityNumber))
              ? {
                  whatIf: {
                    ...(whatIfTime ? { serverTime: whatIfTime } : {}),
                    ...(equityNumber !== undefined && Number.isFinite(equityNumber) ? { equity: equityNumber } : {}),
                  },
                }
              : {}),
            ...(login.trim() ? { login: login.trim() } : {}),
            onlyChanged,
            offset: page * PAGE,
            limit: PAGE,
          }
        : null,
    [settings, whatIfTime, equityNumber, login, onlyChanged, page],
  );
  const preview = useFlexibleLeveragePreview(platformId, pluginId, useSettled(body, 400));
  const warnings = useMemo(() => {
    const byPath = new Map<string, string[]>();
    for (const w of preview.data?.warnings ?? view.warnings) byPath.set(w.path.join("."), [...(byPath.get(w.path.join(".")) ?? []), w.message]);
    return byPath;
  }, [preview.data, view.warnings]);

  const edit = (next: Draft) => {
    setFailure(null);
    setPage(0);
    setDraft(next);
  };
  const rule = draft.rules[selected];
  // Reordering: drag a rule by its row (native drag and drop), or with the keyboard on its handle
  // (arrow keys, Home, End) or the up/down buttons; the selection follows the rule, the focus stays
  // on the control used and a live region says where the rule went.
  const [dragging, setDragging] = useState<number | null>(null);
  const [dropAt, setDropAt] = useState<number | null>(null);
  const [announcement, setAnnouncement] = useState("");
  const list = useRef<HTMLOListElement>(null);
  const refocus = useRef<{ key: string; control: string } | null>(null);
  useEffect(() => {
    const target = refocus.current;
    if (!target) return;
    refocus.current = null;
    list.current?.querySelector<HTMLElement>(`[data-rule="${target.key}"] [data-control="${target.control}"]`)?.focus();
  }, [draft.rules]);
  const reorder = (from: number, to: number, control?: string) => {
    if (to < 0 || to >= draft.rules.length || to === from) return;
    const moved = draft.rules[from]!;
    const rules = move(draft.rules, from, to);
    edit({ ...draft, rules });
    // The selected rule stays selected wherever it moved to.
    const selectedKey = draft.rules[selected]?.key;
    setSelected(
      Math.max(
        0,
        rules.findIndex((r) => r.key === selectedKey),
      ),
    );
    if (control) refocus.current = { key: moved.key, control };
    setAnnouncement(`${moved.name || "(no name)"} moved to position ${to + 1} of ${draft.rules.length}.`);
  };
  /** The gap (0…n) a drag over row `index` points at: before it in its upper half, after it in its lower. */
  const gapOf = (event: DragEvent<HTMLElement>, index: number) => {
    const box = event.currentTarget.getBoundingClientRect();
    return event.clientY < box.top + box.height / 2 ? index : index + 1;
  };
  const onDragOver = (event: DragEvent<HTMLLIElement>, index: number) => {
    if (dragging === null) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
    const gap = gapOf(event, index);
    if (gap !== dropAt) setDropAt(gap);
  };
  const onDrop = (event: DragEvent<HTMLLIElement>, index: number) => {
    if (dragging === null) return;
    event.preventDefault();
    const gap = gapOf(event, index);
    reorder(dragging, gap > dragging ? gap - 1 : gap);
    setDragging(null);
    setDropAt(null);
  };
  const onHandleKey = (event: KeyboardEvent<HTMLButtonElement>, index: number) => {
    const to =
      event.key === "ArrowUp"
        ? index - 1
        : event.key === "ArrowDown"
          ? index + 1
          : event.key === "Home"
            ? 0
            : event.key === "End"
              ? draft.rules.length - 1
              : null;
    if (to === null) return;
    event.preventDefault();
    reorder(index, to, "handle");
  };

  const onSave = async () => {
    if (!settings) return;
    setFailure(null);
    try {
      const saved = await save.mutateAsync(settings);
      toast({ title: "Flexible Leverage saved", description: `${rulesText(saved.settings.rules.length)} now on the server's plugin.`, color: "success" });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      setFailure(error.message);
    }
  };

  const counts = preview.data?.counts;
  const firstProblem = problems.values().next().value;
  return (
    <div className="grid gap-6">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <Badge tone={view.enabled ? "success" : "warning"}>{view.enabled ? "Plugin running" : "Plugin disabled: rules are kept but not applied"}</Badge>
        <span className="text-muted">
          Version {view.version} · server clock {view.serverClock.now.replace("T", " ")} ({view.serverClock.zone})
        </span>
        {view.capacity.limit !== null ? (
          <Badge tone={used > view.capacity.limit ? "danger" : "outline"}>
            {used.toLocaleString("en-US")} of {view.capacity.limit.toLocaleString("en-US")} characters MT4 keeps for rules
          </Badge>
        ) : null}
      </div>
      {view.unreadable ? <FormAlert message={`${view.unreadable.message}. Saving replaces them.`} /> : null}

      <div className="grid gap-6 lg:grid-cols-[18rem_minmax(0,1fr)]">
        <Card>
          <CardHeader>
            <CardTitle>Rules</CardTitle>
            <CardDescription>Tried in order: the first rule that applies wins.</CardDescription>
          </CardHeader>
          <CardContent className="grid gap-2">
            <p id="rule-reorder-help" className="sr-only">
              Drag a rule to reorder it, or focus its handle and press the up or down arrow key (Home and End: first and last).
            </p>
            <div aria-live="polite" className="sr-only">
              {announcement}
            </div>
            <ol ref={list} className="grid gap-1" aria-label="Rules, in order">
              {draft.rules.map((r, i) => (
                <li
                  key={r.key}
                  data-rule={r.key}
                  draggable={canWrite}
                  onDragStart={(event) => {
                    event.dataTransfer.effectAllowed = "move";
                    // Firefox starts a drag only with some data.
                    event.dataTransfer.setData("text/plain", r.name);
                    setDragging(i);
                  }}
                  onDragOver={(event) => onDragOver(event, i)}
                  onDrop={(event) => onDrop(event, i)}
                  onDragEnd={() => {
                    setDragging(null);
                    setDropAt(null);
                  }}
                  className={cn(
                    "relative flex items-center gap-1 rounded-md border px-2 py-1",
                    i === selected ? "border-primary bg-primary/5" : "border-border",
                    dragging === i && "opacity-50",
                    dragging !== null &&
                      dropAt === i &&
                      dragging !== i &&
                      dragging !== i - 1 &&
                      "before:absolute before:inset-x-0 before:-top-1 before:h-0.5 before:bg-primary",
                    dragging !== null &&
                      dropAt === i + 1 &&
                      i === draft.rules.length - 1 &&
                      dragging !== i &&
                      "after:absolute after:inset-x-0 after:-bottom-1 after:h-0.5 after:bg-primary",
                  )}
                >
                  {canWrite ? (
                    <button
                      type="button"
                      data-control="handle"
                      className={cn("cursor-grab rounded-sm p-0.5 text-muted hover:text-fg active:cursor-grabbing", focusRing)}
                      aria-label={`Reorder ${r.name || "(no name)"}, position ${i + 1} of ${draft.rules.length}`}
                      aria-describedby="rule-reorder-help"
                      onKeyDown={(event) => onHandleKey(event, i)}
                    >
                      <GripVertical aria-hidden className="size-4" />
                    </button>
                  ) : null}
                  <button type="button" className="min-w-0 flex-1 truncate text-left text-sm" aria-current={i === selected} onClick={() => setSelected(i)}>
                    {i + 1}. {r.name || "(no name)"}
                    {!r.active ? <span className="text-muted"> (inactive)</span> : null}
                    {ruleHasProblem(problems, i) ? <span className="text-danger"> ⚠</span> : null}
                  </button>
                  {canWrite ? (
                    <>
                      <Button
                        variant="ghost"
                        size="icon"
                        data-control="up"
                        aria-label={`Move ${r.name} up`}
                        disabled={i === 0}
                        onClick={() => reorder(i, i - 1, i - 1 === 0 ? "down" : "up")}
                      >
                        <ArrowUp aria-hidden />
                      </Button>
                      <Button
                        variant="ghost"
                        size="icon"
                        data-control="down"
                        aria-label={`Move ${r.name} down`}
                        disabled={i === draft.rules.length - 1}
                        onClick={() => reorder(i, i + 1, i + 1 === draft.rules.length - 1 ? "up" : "down")}
                      >
                        <ArrowDown aria-hidden />
                      </Button>
                      <Button
                        variant="ghost"
                        size="icon"
                        aria-label={`Remove ${r.name}`}
                        onClick={() => {
                          edit({ ...draft, rules: draft.rules.filter((_, j) => j !== i) });
                          setSelected(Math.max(0, Math.min(selected, draft.rules.length - 2)));
                        }}
                      >
                        <Trash2 aria-hidden />
                      </Button>
                    </>
                  ) : null}
                </li>
              ))}
            </ol>
            {draft.rules.length === 0 ? <p className="text-sm text-muted">No rules: the plugin changes no leverage.</p> : null}
            {canWrite ? (
              <Button
                variant="secondary"
                size="sm"
                onClick={() => {
                  edit({ ...draft, rules: [...draft.rules, newRule(draft.rules.length)] });
                  setSelected(draft.rules.length);
                }}
              >
                <Plus aria-hidden /> Add a rule
              </Button>
            ) : null}
            <Field
              label="Managers"
              description="Manager logins allowed to change these settings, comma-separated"
              error={problems.get("managers") ?? [...problems].find(([k]) => k.startsWith("managers."))?.[1]}
            >
              <Input value={draft.managers} disabled={!canWrite} onChange={(e) => edit({ ...draft, managers: e.target.value })} />
            </Field>
          </CardContent>
        </Card>

        <Card>
          <CardContent className="pt-6">
            {rule ? (
              <RuleForm
                key={rule.key}
                rule={rule}
                index={selected}
                problems={problems}
                warnings={warnings}
                disabled={!canWrite}
                onChange={(next) => edit({ ...draft, rules: draft.rules.map((r, i) => (i === selected ? next : r)) })}
              />
            ) : (
              <p className="text-sm text-muted">Add a rule to edit it here.</p>
            )}
          </CardContent>
        </Card>
      </div>

      {warnings.size > 0 ? (
        <ul className="grid gap-1 text-sm text-warning" aria-label="Warnings">
          {[...warnings.values()].flat().map((w, i) => (
            <li key={i}>⚠ {w}</li>
          ))}
        </ul>
      ) : null}
      <FormAlert message={failure ?? (dirty && firstProblem ? `${problems.size > 1 ? `${problems.size} problems, the first: ` : ""}${firstProblem}` : null)} />
      {canWrite ? (
        <div className="flex items-center gap-3">
          <Button loading={save.isPending} disabled={!dirty || settings === null} onClick={() => void onSave()}>
            Save on the server
          </Button>
          {counts ? (
            <span className="text-sm text-muted">
              Saving now would change {counts.changed.toLocaleString("en-US")} of {counts.accounts.toLocaleString("en-US")} accounts ({counts.lowered} lowered,{" "}
              {counts.raised} raised).
            </span>
          ) : null}
        </div>
      ) : null}

      <Card>
        <CardHeader>
          <CardTitle>Preview</CardTitle>
          <CardDescription>
            Every account of the server under the rules as drafted{preview.data ? `, at ${preview.data.at.replace("T", " ")} on the server's clock` : ""}: the
            leverage it would get and why.
          </CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4">
          <div className="grid gap-4 sm:grid-cols-4">
            <Field label="Login starts with">
              <Input
                value={login}
                onChange={(e) => {
                  setPage(0);
                  setLogin(e.target.value);
                }}
              />
            </Field>
            <Field label="What if the server's clock read" description="Empty: now">
              <Input
                type="datetime-local"
                value={whatIfTime}
                onChange={(e) => {
                  setPage(0);
                  setWhatIfTime(e.target.value.slice(0, 16));
                }}
              />
            </Field>
            <Field
              label="What if every account's equity were"
              description="In its own currency; empty: as it is"
              error={equityNumber !== undefined && !Number.isFinite(equityNumber) ? "Write a number, such as 60000" : undefined}
            >
              <Input inputMode="decimal" value={whatIfEquity} onChange={(e) => setWhatIfEquity(e.target.value)} />
            </Field>
            <div className="flex items-center gap-2 self-end pb-2">
              <Switch
                id="only-changed"
                checked={onlyChanged}
                onCheckedChange={(on) => {
                  setPage(0);
                  setOnlyChanged(on);
                }}
              />
              <label htmlFor="only-changed" className="text-sm">
                Only accounts that would change
              </label>
            </div>
          </div>
          {counts ? (
            <div className="flex flex-wrap gap-2 text-sm" aria-label="Counts">
              <Badge>{counts.accounts.toLocaleString("en-US")} accounts</Badge>
              <Badge tone="primary">{counts.matched.toLocaleString("en-US")} under a rule</Badge>
              <Badge tone={counts.changed > 0 ? "warning" : "outline"}>{counts.changed.toLocaleString("en-US")} would change</Badge>
              {counts.byRule.map((r) => (
                <Badge key={r.ruleIndex} tone="outline">
                  {r.ruleName}: {r.accounts.toLocaleString("en-US")} ({r.changed.toLocaleString("en-US")} change)
                </Badge>
              ))}
            </div>
          ) : null}
          {settings === null ? <p className="text-sm text-muted">Fix the rules above to see the preview.</p> : null}
          {preview.isError ? <FormAlert message={preview.error.message} /> : null}
          <PreviewGrid rows={preview.data?.rows ?? []} loading={preview.isFetching} />
          {preview.data ? (
            <div className="flex items-center gap-3 text-sm">
              <Button variant="secondary" size="sm" disabled={page === 0} onClick={() => setPage(page - 1)}>
                Previous
              </Button>
              <span>
                {preview.data.total === 0
                  ? "No rows"
                  : `${(page * PAGE + 1).toLocaleString("en-US")}–${Math.min((page + 1) * PAGE, preview.data.total).toLocaleString("en-US")} of ${preview.data.total.toLocaleString("en-US")}`}
              </span>
              <Button variant="secondary" size="sm" disabled={(page + 1) * PAGE >= preview.data.total} onClick={() => setPage(page + 1)}>
                Next
              </Button>
            </div>
          ) : null}
          {preview.data?.notes.length ? (
            <ul className="grid gap-1 text-xs text-muted">
              {preview.data.notes.map((n, i) => (
                <li key={i}>{n}</li>
              ))}
            </ul>
          ) : null}
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle>History</CardTitle>
          <CardDescription>
            The saves made from Toolbox, newest first. Load one into the editor to see what it would change now, then save it to revert.
          </CardDescription>
        </CardHeader>
        <CardContent>
          {history.data?.entries.length ? (
            <ol className="grid gap-2" aria-label="Saves, newest first">
              {history.data.entries.map((entry, i) => (
                <li key={i} className="flex flex-wrap items-center gap-3 text-sm">
                  <span>
                    {format.dateTime(entry.at)} · {entry.actorName ?? "a member"} · {rulesText(entry.settings.rules.length)}
                  </span>
                  {canWrite ? (
                    <Button
                      variant="secondary"
                      size="sm"
                      onClick={() => {
                        edit(draftOf(entry.settings));
                        setSelected(0);
                      }}
                    >
                      Load into the editor
                    </Button>
                  ) : null}
                </li>
              ))}
            </ol>
          ) : (
            <p className="text-sm text-muted">{history.isPending ? "Reading…" : "No save from Toolbox yet."}</p>
          )}
        </CardContent>
      </Card>
    </div>
  );
}
