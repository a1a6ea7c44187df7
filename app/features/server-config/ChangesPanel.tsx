import { Check, Trash2, Undo2 } from "lucide-react";
import { Badge } from "~/ui/Badge";
import { Button } from "~/ui/Button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "~/ui/Card";
import { toast } from "~/ui/toast";
import { useApply, type ChangeResult } from "./api";
import { labelOf, showValue } from "./format";
import { diffLines, stagedKey, toSent, useStaging, type Refusal, type Staged } from "./store";

const EMPTY = {};

/** The fields of the server's object that differ from the one the change was staged on. */
function changedFields(base: Record<string, unknown>, current: Record<string, unknown>): Record<string, [unknown, unknown]> {
  const out: Record<string, [unknown, unknown]> = {};
  for (const field of Object.keys(current))
    if (field !== "native" && field !== "name" && JSON.stringify(base[field]) !== JSON.stringify(current[field])) out[field] = [base[field], current[field]];
  return out;
}

/**
 * Every staged change of the platform as a diff (field: before → after), across objects; Apply
 * sends exactly these diffs, one change per object, and each is answered on its own. A refused
 * change stays, with the rule's words, or the server's version beside the staged one.
 */
export function ChangesPanel({ platformId, canWrite }: { platformId: string; canWrite: boolean }) {
  const staged = useStaging((s) => s.staged[platformId] ?? EMPTY) as Record<string, Staged>;
  const refusals = useStaging((s) => s.refusals[platformId] ?? EMPTY) as Record<string, Refusal>;
  const { discard, settle, stageFields } = useStaging.getState();
  const apply = useApply(platformId);
  const entries = Object.entries(staged);

  const send = async () => {
    const sent = entries.map(([key, change]) => ({ key, change }));
    const { results } = await apply.mutateAsync(sent.map(({ change }) => toSent(change)));
    const applied: string[] = [];
    const refused: Record<string, Refusal> = {};
    results.forEach((result: ChangeResult, i) => {
      const key = sent[i]?.key ?? stagedKey(result.kind, result.name);
      if (result.status === "applied") applied.push(key);
      else refused[key] = { status: result.status, message: result.message ?? "Refused.", current: result.current, currentVersion: result.currentVersion };
    });
    settle(platformId, applied, refused);
    const refusedCount = Object.keys(refused).length;
    toast({
      title: refusedCount === 0 ? "Changes applied" : `${applied.length} applied, ${refusedCount} refused`,
      description:
        refusedCount === 0
          ? `${applied.length} change(s) written on the server and recorded in the audit log.`
          : "The refused changes stay staged with the reason.",
      color: refusedCount === 0 ? "success" : "warning",
    });
  };

  return (
    <Card role="region" aria-label="Changes">
      <CardHeader>
        <CardTitle>Changes</CardTitle>
        <CardDescription>Staged, not sent. Apply writes exactly these differences on the server, each checked against the version read.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3">
        {entries.length === 0 ? <p className="text-sm text-muted">No staged change.</p> : null}
        {entries.map(([key, change]) => {
          const refusal = refusals[key];
          const current = refusal?.current as Record<string, unknown> | undefined;
          return (
            <div
              key={key}
              role="group"
              aria-label={change.kind === "holidays" ? "Holidays" : `${change.kind === "group" ? "Group" : "Symbol"} ${change.name}`}
              className="grid min-w-0 gap-1 rounded-md border border-border p-3 break-words"
              data-testid="staged-change"
            >
              <div className="flex items-center justify-between gap-2">
                <span className="text-sm font-medium">
                  {change.kind === "holidays" ? "Holidays" : `${change.kind === "group" ? "Group" : "Symbol"} ${change.name}`}
                </span>
                <span className="flex items-center gap-2">
                  {refusal ? <Badge tone="danger">{refusal.status === "changed" ? "Changed on the server" : "Refused"}</Badge> : null}
                  <Button variant="ghost" size="sm" aria-label={`Discard the change to ${change.name ?? "holidays"}`} onClick={() => discard(platformId, key)}>
                    <Trash2 className="size-4" /> Discard
                  </Button>
                </span>
              </div>
              <ul className="grid gap-0.5 text-sm">
                {diffLines(change).map((line, i) => (
                  <li key={`${line.field}-${i}`}>
                    <span className="text-muted">{labelOf(change.kind, line.field)}:</span> {showValue(change.kind, line.field, line.before, change.base)} →{" "}
                    <strong>{showValue(change.kind, line.field, line.after, change.base)}</strong>
                    {current && change.kind !== "holidays" ? (
                      <span className="text-danger"> (server now: {showValue(change.kind, line.field, current[line.field], current)})</span>
                    ) : null}
                  </li>
                ))}
              </ul>
              {refusal ? <p className="text-sm text-danger">{refusal.message}</p> : null}
              {current && change.kind !== "holidays" ? (
                <ul className="grid gap-0.5 text-sm" aria-label="Changed on the server meanwhile">
                  {Object.entries(changedFields(change.base, current)).map(([field, [was, now]]) => (
                    <li key={field}>
                      <span className="text-muted">Server meanwhile, {labelOf(change.kind, field)}:</span> {showValue(change.kind, field, was, change.base)} →{" "}
                      {showValue(change.kind, field, now, current)}
                    </li>
                  ))}
                </ul>
              ) : null}
              {refusal?.status === "changed" && current && change.kind !== "holidays" && refusal.currentVersion ? (
                <Button
                  variant="secondary"
                  size="sm"
                  className="justify-self-start"
                  onClick={() => stageFields(platformId, change.kind, change.name, current, refusal.currentVersion ?? "", change.patch)}
                >
                  <Undo2 className="size-4" /> Stage again on the server's version
                </Button>
              ) : null}
            </div>
          );
        })}
        {canWrite ? (
          <Button className="justify-self-start" disabled={entries.length === 0} loading={apply.isPending} onClick={() => void send()}>
            <Check className="size-4" /> Apply {entries.length} change(s)
          </Button>
        ) : null}
      </CardContent>
    </Card>
  );
}
