import { useState, type ComponentType } from "react";
import { createFormatter } from "@core/format";
import { useMemberPreferences } from "~/profile";
import { saveDisplayPreference } from "~/profile/displayPreference";
import { Button } from "~/ui/Button";
import { Field } from "~/ui/Field";
import { DISPLAY_LOCALES, useDisplayStore, type DisplayPreference } from "~/ui/format";
import { Section } from "~/ui/Section";
import { Select } from "~/ui/Select";
import { toast } from "~/ui/toast";

const BROWSER = "browser";
const SAMPLE_TIME = Date.UTC(2026, 10, 27, 14, 3, 7);

/**
 * Settings → General, for the member alone: how every screen and export shows dates, times, money
 * and volumes (core/format.ts), saved as their "display" preference in this organization.
 */
/** The platform form's zone picker, handed in by the route (features reach each other through their index, and the picker is not light). */
type ZonePicker = ComponentType<{ value: string; onChange: (zone: string) => void; id?: string }>;

export function DisplaySection({ TimeZonePicker }: { TimeZonePicker: ZonePicker }) {
  const preference = useDisplayStore((s) => s.preference);
  // Starts over from what is saved once it is read (or saved).
  return <DisplayForm key={JSON.stringify(preference)} preference={preference} TimeZonePicker={TimeZonePicker} />;
}

function DisplayForm({ preference, TimeZonePicker }: { preference: DisplayPreference; TimeZonePicker: ZonePicker }) {
  const preferences = useMemberPreferences();
  const [locale, setLocale] = useState(preference.locale ?? BROWSER);
  const [timeZone, setTimeZone] = useState(preference.timeZone ?? "");
  const [saving, setSaving] = useState(false);
  const organizationZone = useDisplayStore((s) => s.organizationTimeZone);
  const defaultZone = organizationZone ?? new Intl.DateTimeFormat().resolvedOptions().timeZone;
  const chosen = { locale: locale === BROWSER ? null : locale, timeZone: timeZone || null };
  const sample = createFormatter(chosen, { locale: typeof navigator === "undefined" ? undefined : navigator.language, timeZone: defaultZone });
  const changed = chosen.locale !== (preference.locale ?? null) || chosen.timeZone !== (preference.timeZone ?? null);

  async function save() {
    setSaving(true);
    try {
      await saveDisplayPreference(preferences.write, preferences.scope, chosen);
      toast({ title: "Display saved", description: "Dates, times and figures now show in your format.", color: "success" });
    } catch {
      toast({ title: "Not saved", description: "Your display choice could not be saved. Try again in a moment.", color: "error", icon: "warning" });
    } finally {
      setSaving(false);
    }
  }

  return (
    <Section title="Your display" description="How dates, times, money and volumes show on every screen and in exports, for you alone.">
      <div className="grid max-w-xl gap-4">
        <Field label="Format" description="Dates and numbers in every table, list, form and export.">
          <Select
            value={locale}
            onValueChange={setLocale}
            options={[{ value: BROWSER, label: "As my browser is set" }, ...DISPLAY_LOCALES.map((l) => ({ value: l.value, label: l.label }))]}
          />
        </Field>
        <Field
          label="Time zone"
          description={
            organizationZone
              ? `Times and days are shown in this zone; empty follows the organization's (${organizationZone}).`
              : `Times and days are shown in this zone; empty follows your computer (${defaultZone}).`
          }
        >
          <TimeZonePicker value={timeZone} onChange={setTimeZone} />
        </Field>
        <p className="text-sm text-muted" aria-live="polite">
          Looks like: <span className="font-medium text-fg tabular-nums">{sample.dateTime(SAMPLE_TIME)}</span> ·{" "}
          <span className="font-medium text-fg tabular-nums">{sample.money("1234567.5")}</span> ({sample.timeZone})
        </p>
        <div className="flex gap-2">
          <Button onClick={() => void save()} disabled={!changed || saving}>
            {saving ? "Saving…" : "Save display"}
          </Button>
          {timeZone ? (
            <Button variant="ghost" onClick={() => setTimeZone("")}>
              {organizationZone ? "Follow the organization's zone" : "Follow my computer's zone"}
            </Button>
          ) : null}
        </div>
      </div>
    </Section>
  );
}
