import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type ComponentType, type FormEvent } from "react";
import { CURRENCIES, currencyLabel } from "@core/currencies";
import { OrganizationProfileInputSchema } from "@core/schemas/organization";
import { ApiError } from "~/api";
import { refreshOrganizations, useAccess, useCurrentOrganizationId } from "~/profile";
import { Button } from "~/ui/Button";
import { DescriptionList } from "~/ui/DescriptionList";
import { Field } from "~/ui/Field";
import { FormAlert } from "~/ui/FormAlert";
import { formatDateTime } from "~/ui/grid";
import { Input } from "~/ui/Input";
import { Section } from "~/ui/Section";
import { Select, type SelectOption } from "~/ui/Select";
import { Skeleton } from "~/ui/Skeleton";
import { toast } from "~/ui/toast";
import { organizationProfileApi, organizationProfileKey, type OrganizationProfile } from "./organizationProfileApi";

type FieldName = "name" | "currency" | "timeZone";
const FIELDS: readonly string[] = ["name", "currency", "timeZone"] satisfies FieldName[];
const isField = (field: unknown): field is FieldName => typeof field === "string" && FIELDS.includes(field);

/** The platform form's zone picker, handed in by the route (features reach each other through their index). */
type ZonePicker = ComponentType<{ value: string; onChange: (zone: string) => void; disabled?: boolean; id?: string }>;
type FieldErrors = Partial<Record<FieldName, string>>;

/** The fixed list, plus a code set in the database outside it, so the form shows what is stored. */
function currencyOptions(current: string): SelectOption[] {
  const options: SelectOption[] = CURRENCIES.map((c) => ({ value: c.code, label: currencyLabel(c.code) }));
  return options.some((o) => o.value === current) ? options : [{ value: current, label: current }, ...options];
}

/** Field errors from the shared schema (the API's own rules); the API stays the judge. */
function validate(input: { name: string; currency: string; timeZone: string }): FieldErrors {
  const result = OrganizationProfileInputSchema.safeParse(input);
  if (result.success) return {};
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const field = issue.path[0];
    if (isField(field) && !errors[field]) errors[field] = issue.message;
  }
  return errors;
}

/** A 400's issues on `body.name` / `body.currency`, tied to their fields; anything else for the form. */
function errorsOf(error: unknown): { fields: FieldErrors; form: string | null } {
  if (!(error instanceof ApiError) || !error.status) return { fields: {}, form: "Toolbox's service did not answer. Try again in a moment." };
  const fields: FieldErrors = {};
  if (error.status === 400) {
    try {
      const body = JSON.parse(error.body) as { issues?: { path: string; message: string }[] };
      for (const issue of body.issues ?? []) {
        const field = issue.path.replace(/^body\./, "").split(".")[0];
        if (isField(field) && !fields[field]) fields[field] = issue.message;
      }
    } catch {
      // Not our JSON: the message below says it.
    }
  }
  return Object.keys(fields).length ? { fields, form: null } : { fields, form: error.message };
}

/**
 * Settings → General: the organization's name, currency and default time zone (docs/administration.md
 * "Organization profile"). Every member sees them; administrators change them, others read a note
 * saying who can.
 */
export function OrganizationProfileSection({ TimeZonePicker }: { TimeZonePicker: ZonePicker }) {
  const organizationId = useCurrentOrganizationId();
  const profile = useQuery({ queryKey: organizationProfileKey(organizationId), queryFn: ({ signal }) => organizationProfileApi.get(signal) });
  const { hasModule } = useAccess();
  const canWrite = hasModule("settings", "write");
  return (
    <Section
      title="Organization profile"
      description="The organization's name, the currency its figures across trading servers are stated in, and the time zone its members see times in."
    >
      {profile.data ? (
        // Keyed on what the server holds, so the form starts over from it after a save or a switch.
        <ProfileForm key={JSON.stringify(profile.data)} profile={profile.data} canWrite={canWrite} TimeZonePicker={TimeZonePicker} />
      ) : profile.isError ? (
        <FormAlert message={errorsOf(profile.error).form ?? "The organization's profile could not be read."} />
      ) : (
        <Skeleton className="h-56 w-full max-w-xl" />
      )}
    </Section>
  );
}

function ProfileForm({ profile, canWrite, TimeZonePicker }: { profile: OrganizationProfile; canWrite: boolean; TimeZonePicker: ZonePicker }) {
  const organizationId = useCurrentOrganizationId();
  const queryClient = useQueryClient();
  const [name, setName] = useState(profile.name);
  const [currency, setCurrency] = useState(profile.currency);
  const [timeZone, setTimeZone] = useState(profile.timeZone);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const nameInput = useRef<HTMLInputElement>(null);

  const save = useMutation({
    mutationFn: () => organizationProfileApi.save({ name, currency, timeZone }),
    onSuccess: async (saved) => {
      queryClient.setQueryData(organizationProfileKey(organizationId), saved);
      // What states figures in the currency reads it again; the switcher shows the new name.
      void queryClient.invalidateQueries({ queryKey: ["tradesBlotter", organizationId, "exposureRates"] });
      toast({
        title: "Organization profile saved",
        description: `${saved.name}, figures in ${currencyLabel(saved.currency)}, times in ${saved.timeZone}.`,
        color: "success",
        icon: "success",
      });
      // The organizations list carries the default zone: members without their own follow it.
      await refreshOrganizations().catch(() => undefined);
    },
    onError: (e) => {
      if (e instanceof ApiError && e.status === 401) return;
      const { fields, form } = errorsOf(e);
      setFieldErrors(fields);
      setFormError(form);
      if (fields.name) nameInput.current?.focus();
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFormError(null);
    const errors = validate({ name, currency, timeZone });
    setFieldErrors(errors);
    // Back to the field, so keyboard and screen-reader users land on what needs fixing.
    if (errors.name) nameInput.current?.focus();
    if (Object.keys(errors).length) return;
    save.mutate();
  };

  const createdBy = profile.createdBy ? (profile.createdBy.name ?? "A person whose name the identity provider did not give") : null;

  return (
    <div className="grid max-w-xl gap-6">
      <form onSubmit={submit} noValidate className="grid gap-5" aria-label="Organization profile">
        {canWrite ? null : (
          <p role="note" className="rounded-md border border-border bg-subtle p-3 text-sm">
            Only this organization&apos;s administrators can change its name, currency and time zone. Ask one of them on Settings → Members.
          </p>
        )}
        <Field label="Name" error={fieldErrors.name} description="Shown in the organization switcher, e-mails and notifications.">
          <Input
            ref={nameInput}
            value={name}
            onChange={(e) => {
              setName(e.target.value);
              if (fieldErrors.name) setFieldErrors(({ name: _, ...rest }) => rest);
            }}
            autoComplete="organization"
            required
            readOnly={!canWrite}
            aria-readonly={!canWrite || undefined}
          />
        </Field>
        <Field
          label="Currency"
          error={fieldErrors.currency}
          description="The blotter's net exposure and other figures across servers are converted to it with the servers' own quotes."
        >
          <Select
            value={currency}
            onValueChange={(value) => {
              setCurrency(value);
              if (fieldErrors.currency) setFieldErrors(({ currency: _, ...rest }) => rest);
            }}
            options={currencyOptions(profile.currency)}
            disabled={!canWrite}
            className="max-w-72"
          />
        </Field>
        <Field
          label="Time zone"
          error={fieldErrors.timeZone}
          description="Times and days are shown in this zone for members who have not chosen their own under Your display."
        >
          <TimeZonePicker
            value={timeZone}
            onChange={(zone) => {
              setTimeZone(zone);
              if (fieldErrors.timeZone) setFieldErrors(({ timeZone: _, ...rest }) => rest);
            }}
            disabled={!canWrite}
          />
        </Field>
        <FormAlert message={formError} />
        {canWrite ? (
          <div>
            <Button type="submit" loading={save.isPending}>
              Save profile
            </Button>
          </div>
        ) : null}
      </form>
      <DescriptionList
        items={[{ term: "Created", value: formatDateTime(profile.createdAt) }, ...(createdBy ? [{ term: "Created by", value: createdBy }] : [])]}
      />
    </div>
  );
}
