import { useState } from "react";
import type { DealingView } from "@core/dealing/schema";
import { ApiError } from "~/api";
import { Badge } from "~/ui/Badge";
import { Button } from "~/ui/Button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "~/ui/Card";
import { Field } from "~/ui/Field";
import { FormAlert } from "~/ui/FormAlert";
import { Input } from "~/ui/Input";
import { Select } from "~/ui/Select";
import { useDealingWrites } from "./dealingApi";

/** "Sat 28 Nov 2026, 18:00" on the server's clock. */
export function serverTime(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat("en-GB", {
    timeZone,
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(new Date(iso));
}

/** The profile in force, why, since when and the next switch; the manual override (set with an end, or ended). */
export function ActiveProfileCard({ platformId, view, canWrite }: { platformId: string; view: DealingView; canWrite: boolean }) {
  const { setOverride, endOverride } = useDealingWrites(platformId);
  const { active, timeZone } = view;
  const [profile, setProfile] = useState(view.settings.profiles[0]?.name ?? "");
  const [until, setUntil] = useState("");
  const [failure, setFailure] = useState<string | null>(null);
  const run = async (action: () => Promise<unknown>) => {
    setFailure(null);
    try {
      await action();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      setFailure(error.message);
    }
  };
  return (
    <Card>
      <CardHeader>
        <CardTitle>Profile in force</CardTitle>
        <CardDescription>Times are the server&apos;s clock ({timeZone}).</CardDescription>
      </CardHeader>
      <CardContent className="space-y-3">
        <p className="flex flex-wrap items-center gap-2 text-sm" data-testid="dealing-active">
          <Badge tone={active.reason.kind === "override" ? "warning" : "primary"}>{active.profile}</Badge>
          <span>{active.reason.text}</span>
          {active.since ? <span className="text-muted">since {serverTime(active.since, timeZone)}</span> : null}
        </p>
        <p className="text-sm" data-testid="dealing-next">
          {active.next ? (
            <>
              Next switch: <strong>{active.next.profile}</strong> at {serverTime(active.next.at, timeZone)} ({active.next.reason.text})
            </>
          ) : (
            <span className="text-muted">No switch within the next 8 days.</span>
          )}
        </p>
        {view.override ? (
          <div className="flex flex-wrap items-center gap-2 text-sm">
            <span>
              Manual override: <strong>{view.override.profile}</strong> until {serverTime(view.override.until, timeZone)}
            </span>
            {canWrite ? (
              <Button variant="secondary" size="sm" loading={endOverride.isPending} onClick={() => void run(() => endOverride.mutateAsync())}>
                End override
              </Button>
            ) : null}
          </div>
        ) : canWrite ? (
          <form
            className="flex flex-wrap items-end gap-2"
            onSubmit={(event) => {
              event.preventDefault();
              if (!until) return setFailure("Choose when the override ends.");
              void run(() => setOverride.mutateAsync({ profile, until: new Date(until).toISOString() }));
            }}
          >
            <Select
              aria-label="Override profile"
              className="w-44"
              options={view.settings.profiles.map((p) => ({ value: p.name, label: p.name }))}
              value={profile}
              onValueChange={setProfile}
            />
            <Field label="Until (your local time)" className="text-sm">
              <Input type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />
            </Field>
            <Button type="submit" variant="secondary" loading={setOverride.isPending}>
              Override
            </Button>
          </form>
        ) : null}
        <FormAlert message={failure} />
      </CardContent>
    </Card>
  );
}
