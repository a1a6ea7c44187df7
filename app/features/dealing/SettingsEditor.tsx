import { Plus, Trash2 } from "lucide-react";
import { useState, type ReactNode } from "react";
import { WEEK_DAYS, type DealingSettings, type ExecutionProfile, type Markup } from "@core/dealing/schema";
import { ApiError } from "~/api";
import { Button } from "~/ui/Button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "~/ui/Card";
import { Field } from "~/ui/Field";
import { FormAlert } from "~/ui/FormAlert";
import { Input } from "~/ui/Input";
import { Select } from "~/ui/Select";
import { useDealingWrites } from "./dealingApi";

const newProfile = (name: string): ExecutionProfile => ({
  name,
  markups: [],
  maxDeviationPoints: null,
  executionDelayMs: 0,
  maxVolumeLots: null,
  staleQuoteMs: null,
});
const numberOrNull = (text: string) => (text.trim() === "" ? null : Number(text));
const cell = "px-2 py-1 align-middle";

function Table({ head, children }: { head: string[]; children: ReactNode }) {
  return (
    <table className="w-full text-sm">
      <thead>
        <tr className="text-left text-muted">
          {head.map((h) => (
            <th key={h} className={`${cell} font-medium`}>
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}

function RemoveButton({ label, onClick, disabled }: { label: string; onClick: () => void; disabled: boolean }) {
  return (
    <Button variant="ghost" size="icon" aria-label={label} onClick={onClick} disabled={disabled}>
      <Trash2 aria-hidden className="size-4" />
    </Button>
  );
}

/**
 * The platform's execution profiles (limits and a grid of markups each), the weekly schedule and
 * holidays, edited together and saved whole (PUT): the API checks every rule and answers in words.
 */
export function SettingsEditor({
  platformId,
  initial,
  canWrite,
  saved,
  onSaved,
}: {
  platformId: string;
  initial: DealingSettings;
  canWrite: boolean;
  /** This page saved the settings shown (the editor remounts with them, so its parent keeps this). */
  saved: boolean;
  /** Told the stored settings' version after a save. */
  onSaved: (version: string | null) => void;
}) {
  const { save } = useDealingWrites(platformId);
  const [draft, setDraft] = useState<DealingSettings>(initial);
  const [edited, setEdited] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const ro = !canWrite;
  const change = (next: DealingSettings) => {
    setDraft(next);
    setEdited(true);
  };
  const setProfile = (i: number, patch: Partial<ExecutionProfile>) =>
    change({ ...draft, profiles: draft.profiles.map((p, j) => (j === i ? { ...p, ...patch } : p)) });
  const setMarkup = (i: number, k: number, patch: Partial<Markup>) =>
    setProfile(i, { markups: draft.profiles[i]!.markups.map((m, j) => (j === k ? { ...m, ...patch } : m)) });
  const profileOptions = draft.profiles.map((p) => ({ value: p.name, label: p.name || "(unnamed)" }));

  const submit = async () => {
    setFailure(null);
    try {
      const view = await save.mutateAsync(draft);
      onSaved(view.updatedAt);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      setFailure(error.message);
    }
  };

  return (
    <div className="space-y-4">
      <Card>
        <CardHeader>
          <CardTitle>Execution profiles</CardTitle>
          <CardDescription>
            Spread markups in points, split between bid and ask, per symbol (EURUSD) or symbol group (Forex\Majors); a symbol&apos;s own markup overrides its
            group&apos;s. Empty limits mean none.
          </CardDescription>
        </CardHeader>
        <CardContent className="space-y-6">
          {draft.profiles.map((profile, i) => (
            <fieldset key={i} className="space-y-3 rounded-md border border-border p-3" aria-label={`Profile ${profile.name}`}>
              <div className="grid grid-cols-2 gap-3 md:grid-cols-6">
                <Field label="Name" className="text-sm md:col-span-2">
                  <Input value={profile.name} disabled={ro} onChange={(e) => setProfile(i, { name: e.target.value })} />
                </Field>
                <Field label="Max deviation (points)" className="text-sm">
                  <Input
                    type="number"
                    min={0}
                    value={profile.maxDeviationPoints ?? ""}
                    disabled={ro}
                    onChange={(e) => setProfile(i, { maxDeviationPoints: numberOrNull(e.target.value) })}
                  />
                </Field>
                <Field label="Execution delay (ms)" className="text-sm">
                  <Input
                    type="number"
                    min={0}
                    value={profile.executionDelayMs}
                    disabled={ro}
                    onChange={(e) => setProfile(i, { executionDelayMs: Number(e.target.value || 0) })}
                  />
                </Field>
                <Field label="Max volume per order (lots)" className="text-sm">
                  <Input
                    type="number"
                    min={0}
                    step="0.01"
                    value={profile.maxVolumeLots ?? ""}
                    disabled={ro}
                    onChange={(e) => setProfile(i, { maxVolumeLots: numberOrNull(e.target.value) })}
                  />
                </Field>
                <Field label="Stale quote after (ms)" className="text-sm">
                  <Input
                    type="number"
                    min={0}
                    value={profile.staleQuoteMs ?? ""}
                    disabled={ro}
                    onChange={(e) => setProfile(i, { staleQuoteMs: numberOrNull(e.target.value) })}
                  />
                </Field>
              </div>
              <Table head={["Markup on", "Symbol or group", "Bid (points)", "Ask (points)", ""]}>
                {profile.markups.map((m, k) => (
                  <tr key={k}>
                    <td className={cell}>
                      <Select
                        aria-label="Markup kind"
                        className="w-28"
                        disabled={ro}
                        options={[
                          { value: "symbol", label: "Symbol" },
                          { value: "group", label: "Group" },
                        ]}
                        value={m.kind}
                        onValueChange={(v) => setMarkup(i, k, { kind: v as Markup["kind"] })}
                      />
                    </td>
                    <td className={cell}>
                      <Input aria-label="Markup target" value={m.target} disabled={ro} onChange={(e) => setMarkup(i, k, { target: e.target.value })} />
                    </td>
                    <td className={cell}>
                      <Input
                        aria-label="Bid markup"
                        type="number"
                        min={0}
                        value={m.bidPoints}
                        disabled={ro}
                        onChange={(e) => setMarkup(i, k, { bidPoints: Number(e.target.value || 0) })}
                      />
                    </td>
                    <td className={cell}>
                      <Input
                        aria-label="Ask markup"
                        type="number"
                        min={0}
                        value={m.askPoints}
                        disabled={ro}
                        onChange={(e) => setMarkup(i, k, { askPoints: Number(e.target.value || 0) })}
                      />
                    </td>
                    <td className={cell}>
                      <RemoveButton label="Remove markup" disabled={ro} onClick={() => setProfile(i, { markups: profile.markups.filter((_, j) => j !== k) })} />
                    </td>
                  </tr>
                ))}
              </Table>
              <div className="flex gap-2">
                <Button
                  variant="secondary"
                  size="sm"
                  disabled={ro}
                  onClick={() => setProfile(i, { markups: [...profile.markups, { kind: "symbol", target: "", bidPoints: 0, askPoints: 0 }] })}
                >
                  <Plus aria-hidden className="size-4" /> Add markup
                </Button>
                <Button
                  variant="ghost"
                  size="sm"
                  disabled={ro || draft.profiles.length === 1}
                  onClick={() => change({ ...draft, profiles: draft.profiles.filter((_, j) => j !== i) })}
                >
                  Remove profile
                </Button>
              </div>
            </fieldset>
          ))}
          <div className="flex flex-wrap items-end gap-3">
            <Button
              variant="secondary"
              size="sm"
              disabled={ro}
              onClick={() => change({ ...draft, profiles: [...draft.profiles, newProfile(`profile ${draft.profiles.length + 1}`)] })}
            >
              <Plus aria-hidden className="size-4" /> Add profile
            </Button>
            <Field label="Default profile" className="text-sm">
              <Select
                className="w-44"
                disabled={ro}
                options={profileOptions}
                value={draft.defaultProfile}
                onValueChange={(v) => change({ ...draft, defaultProfile: v })}
              />
            </Field>
          </div>
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle>Weekly schedule</CardTitle>
          <CardDescription>Each entry puts a profile in force from that day and time (the server&apos;s clock) until the next entry.</CardDescription>
        </CardHeader>
        <CardContent className="space-y-3">
          <Table head={["Day", "Time", "Profile", ""]}>
            {draft.schedule.map((entry, i) => (
              <tr key={i}>
                <td className={cell}>
                  <Select
                    aria-label="Schedule day"
                    className="w-36"
                    disabled={ro}
                    options={WEEK_DAYS.map((d) => ({ value: d, label: d.charAt(0).toUpperCase() + d.slice(1) }))}
                    value={entry.day}
                    onValueChange={(v) => change({ ...draft, schedule: draft.schedule.map((e, j) => (j === i ? { ...e, day: v as typeof e.day } : e)) })}
                  />
                </td>
                <td className={cell}>
                  <Input
                    aria-label="Schedule time"
                    type="time"
                    value={entry.time}
                    disabled={ro}
                    onChange={(ev) => change({ ...draft, schedule: draft.schedule.map((e, j) => (j === i ? { ...e, time: ev.target.value } : e)) })}
                  />
                </td>
                <td className={cell}>
                  <Select
                    aria-label="Schedule profile"
                    className="w-44"
                    disabled={ro}
                    options={profileOptions}
                    value={entry.profile}
                    onValueChange={(v) => change({ ...draft, schedule: draft.schedule.map((e, j) => (j === i ? { ...e, profile: v } : e)) })}
                  />
                </td>
                <td className={cell}>
                  <RemoveButton
                    label="Remove schedule entry"
                    disabled={ro}
                    onClick={() => change({ ...draft, schedule: draft.schedule.filter((_, j) => j !== i) })}
                  />
                </td>
              </tr>
            ))}
          </Table>
          <Button
            variant="secondary"
            size="sm"
            disabled={ro}
            onClick={() => change({ ...draft, schedule: [...draft.schedule, { day: "monday", time: "00:00", profile: draft.defaultProfile }] })}
          >
            <Plus aria-hidden className="size-4" /> Add entry
          </Button>
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle>Holidays</CardTitle>
          <CardDescription>A holiday&apos;s profile holds the whole day on the server&apos;s clock, whatever the schedule says.</CardDescription>
        </CardHeader>
        <CardContent className="space-y-3">
          <Table head={["Date", "Name", "Profile", ""]}>
            {draft.holidays.map((h, i) => (
              <tr key={i}>
                <td className={cell}>
                  <Input
                    aria-label="Holiday date"
                    type="date"
                    value={h.date}
                    disabled={ro}
                    onChange={(ev) => change({ ...draft, holidays: draft.holidays.map((x, j) => (j === i ? { ...x, date: ev.target.value } : x)) })}
                  />
                </td>
                <td className={cell}>
                  <Input
                    aria-label="Holiday name"
                    value={h.name}
                    disabled={ro}
                    onChange={(ev) => change({ ...draft, holidays: draft.holidays.map((x, j) => (j === i ? { ...x, name: ev.target.value } : x)) })}
                  />
                </td>
                <td className={cell}>
                  <Select
                    aria-label="Holiday profile"
                    className="w-44"
                    disabled={ro}
                    options={profileOptions}
                    value={h.profile}
                    onValueChange={(v) => change({ ...draft, holidays: draft.holidays.map((x, j) => (j === i ? { ...x, profile: v } : x)) })}
                  />
                </td>
                <td className={cell}>
                  <RemoveButton label="Remove holiday" disabled={ro} onClick={() => change({ ...draft, holidays: draft.holidays.filter((_, j) => j !== i) })} />
                </td>
              </tr>
            ))}
          </Table>
          <Button
            variant="secondary"
            size="sm"
            disabled={ro}
            onClick={() =>
              change({ ...draft, holidays: [...draft.holidays, { date: new Date().toISOString().slice(0, 10), name: "", profile: draft.defaultProfile }] })
            }
          >
            <Plus aria-hidden className="size-4" /> Add holiday
          </Button>
        </CardContent>
      </Card>

      <FormAlert message={failure} />
      {canWrite ? (
        <div className="flex items-center gap-3">
          <Button loading={save.isPending} onClick={() => void submit()}>
            Save dealing settings
          </Button>
          <Button variant="ghost" onClick={() => change(initial)}>
            Discard changes
          </Button>
          {saved && !edited ? (
            <span className="text-sm text-muted" role="status">
              Saved and recorded in the audit log.
            </span>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
