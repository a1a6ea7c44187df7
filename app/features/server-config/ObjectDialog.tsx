import { History, Undo2 } from "lucide-react";
import { useState } from "react";
import { patchGroup, patchSymbol } from "@core/trading/configRules";
import type { Group } from "@core/trading/group";
import type { TradePlatformType } from "@core/trading/platform";
import type { TradeSymbol } from "@core/trading/symbol";
import { Button } from "~/ui/Button";
import { DialogContent, DialogRoot } from "~/ui/Dialog";
import { Field } from "~/ui/Field";
import { FormAlert } from "~/ui/FormAlert";
import { Input } from "~/ui/Input";
import { Select } from "~/ui/Select";
import { toast } from "~/ui/toast";
import { useHistory, type Item } from "./api";
import { fieldsOf, fromText, toText, unwritable } from "./fields";
import { labelOf, showValue } from "./format";
import { stagedKey, useStaging } from "./store";

/**
 * One group or symbol as a form in the platform's units: fields the platform cannot take shown
 * read-only with why, the platform's rules checked as the dealer types (the same sentences the
 * server answers), "Stage" adds the differences to the Changes panel. Below: the object's change
 * history, each entry's "Revert" staging the inverse change against the version read now.
 */
export function ObjectDialog({
  platformId,
  platform,
  kind,
  item,
  canWrite,
  onClose,
}: {
  platformId: string;
  platform: TradePlatformType;
  kind: "group" | "symbol";
  item: Item<Group | TradeSymbol>;
  canWrite: boolean;
  onClose: () => void;
}) {
  const fields = fieldsOf(kind);
  const object = item.object as unknown as Record<string, unknown>;
  const staged = useStaging((s) => s.staged[platformId]?.[stagedKey(kind, item.object.name)]);
  const stageFields = useStaging((s) => s.stageFields);
  const startValues = { ...object, ...(staged && staged.kind !== "holidays" ? staged.patch : {}) };
  const [texts, setTexts] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map((f) => [f.key, toText(f, startValues[f.key], startValues as Partial<Group>)])),
  );
  const history = useHistory(platformId, kind, item.object.name);

  const parsed: Record<string, unknown> = {};
  const unreadable: string[] = [];
  for (const f of fields) {
    if (unwritable(platform, kind, f.key)) continue;
    const value = fromText(f, texts[f.key] ?? "", { ...object, ...parsed });
    if (value === undefined) unreadable.push(`${f.label}: not a value this field takes.`);
    else parsed[f.key] = value;
  }
  const check = kind === "group" ? patchGroup(platform, item.object as Group, parsed) : patchSymbol(platform, item.object as TradeSymbol, parsed);
  const problems = [...unreadable, ...(check.ok ? [] : check.problems)];

  const stage = () => {
    stageFields(platformId, kind, item.object.name, item.object, item.version, parsed);
    toast({ title: `${item.object.name} staged`, description: "Review it in the Changes panel, then apply.", color: "info" });
    onClose();
  };
  const revert = (patch: Record<string, unknown>) => {
    stageFields(platformId, kind, item.object.name, item.object, item.version, patch);
    toast({ title: "Revert staged", description: `The inverse change to ${item.object.name} is in the Changes panel.`, color: "info" });
    onClose();
  };

  return (
    <DialogRoot open onOpenChange={(open) => !open && onClose()}>
      <DialogContent
        title={`${kind === "group" ? "Group" : "Symbol"} ${item.object.name}`}
        description={`Version ${item.version} as read from the server`}
        className="max-w-3xl"
        footer={
          canWrite ? (
            <>
              <Button variant="secondary" onClick={onClose}>
                Cancel
              </Button>
              <Button disabled={problems.length > 0} onClick={stage}>
                Stage changes
              </Button>
            </>
          ) : undefined
        }
      >
        <div className="grid gap-3 sm:grid-cols-2">
          {fields.map((f) => {
            const why = unwritable(platform, kind, f.key);
            const disabled = !canWrite || why !== undefined;
            const set = (text: string) => setTexts((t) => ({ ...t, [f.key]: text }));
            return (
              <Field key={f.key} label={f.label} description={why}>
                {f.type === "choice" || f.type === "boolean" ? (
                  <Select
                    disabled={disabled}
                    value={texts[f.key]}
                    onValueChange={set}
                    options={(f.type === "boolean" ? ["yes", "no"] : (f.choices ?? [])).map((c) => ({ value: c, label: c }))}
                  />
                ) : (
                  <Input disabled={disabled} value={texts[f.key] ?? ""} onChange={(e) => set(e.target.value)} />
                )}
              </Field>
            );
          })}
        </div>
        <FormAlert message={problems.length > 0 ? problems.join(" ") : null} />
        <section aria-label="Change history" className="grid gap-2">
          <h3 className="flex items-center gap-2 text-sm font-medium">
            <History className="size-4" /> Change history
          </h3>
          {history.data?.entries.length === 0 ? <p className="text-sm text-muted">No change recorded from Toolbox.</p> : null}
          {history.data?.entries.map((entry) => {
            const before = (entry.before ?? {}) as Record<string, unknown>;
            const after = (entry.after ?? {}) as Record<string, unknown>;
            return (
              <div key={entry.id} className="flex items-start justify-between gap-2 rounded-md border border-border p-2 text-sm" data-testid="history-entry">
                <div>
                  <div className="text-muted">
                    {new Date(entry.at).toLocaleString()} · {entry.actorName ?? "someone"}
                  </div>
                  {Object.keys(after).map((field) => (
                    <div key={field}>
                      {labelOf(kind, field)}: {showValue(kind, field, before[field], before)} → {showValue(kind, field, after[field], after)}
                    </div>
                  ))}
                </div>
                {canWrite ? (
                  <Button variant="secondary" size="sm" onClick={() => revert(entry.revert as Record<string, unknown>)}>
                    <Undo2 className="size-4" /> Revert
                  </Button>
                ) : null}
              </div>
            );
          })}
        </section>
      </DialogContent>
    </DialogRoot>
  );
}
