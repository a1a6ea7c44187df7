import { Save } from "lucide-react";
import { useRef, useState, type FormEvent } from "react";
import { ApiError } from "~/api";
import { Button } from "~/ui/Button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "~/ui/Card";
import { Field } from "~/ui/Field";
import { Input } from "~/ui/Input";
import { toast } from "~/ui/toast";
import { ConnectionFields } from "../form/ConnectionFields";
import { FormAlert } from "~/ui/FormAlert";
import { formErrors, NAME_MAX, platformFormFrom } from "../form/platformForm";
import { TestConnection } from "../form/TestConnection";
import { TimeZonePicker } from "../form/TimeZonePicker";
import { usePlatformForm } from "../form/usePlatformForm";
import { platformApi, type PlatformDetail } from "../platformApi";
import { platformPatchFrom } from "./platformPatch";
import { useStorePlatformDetail } from "./usePlatformDetail";

/** Name, time zone and connection of a saved platform; only changed fields are sent, secrets only when typed. */
export function PlatformDetailsForm({ platform, canWrite }: { platform: PlatformDetail; canWrite: boolean }) {
  const [saved, setSaved] = useState(() => platformFormFrom(platform));
  const form = usePlatformForm(saved);
  const { values: v, errors, set } = form;
  const [pending, setPending] = useState(false);
  const [apiError, setApiError] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const storeDetail = useStorePlatformDetail();
  // A secret is stored and still applies while the kind of connection is the one it was saved for.
  const secretStored = platform.connection.hasSecret && saved.source === v.source;
  const patch = platformPatchFrom(saved, v);
  const dirty = Object.keys(patch).length > 0;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setApiError(null);
    const problems = formErrors(v, { secretStored });
    form.setErrors(problems);
    if (Object.keys(problems).length) {
      requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    if (!dirty) return;
    setPending(true);
    try {
      const updated = await platformApi.update(platform.id, patch);
      storeDetail(updated);
      const next = platformFormFrom(updated);
      setSaved(next);
      form.setValues(next);
      toast({ title: "Changes saved", description: patch.connection ? `${updated.name} reconnects with the new connection.` : undefined, color: "success" });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return;
      setApiError(error instanceof ApiError && error.status ? error.message : "Toolbox's service did not answer. Nothing was saved; try again.");
    } finally {
      setPending(false);
    }
  }

  return (
    <form ref={formRef} onSubmit={submit} noValidate>
      <Card>
        <CardHeader>
          <CardTitle>Details</CardTitle>
          <CardDescription>
            {canWrite
              ? "Changing the connection reconnects the platform."
              : "You can read these settings; changing them needs write access to trade platforms."}
          </CardDescription>
        </CardHeader>
        <CardContent className="grid gap-5">
          <div className="grid items-start gap-4 sm:grid-cols-2">
            <Field label="Name" error={errors.name}>
              <Input value={v.name} onChange={(e) => set("name", e.target.value)} maxLength={NAME_MAX + 20} disabled={!canWrite} autoComplete="off" />
            </Field>
            <Field label="Server time zone" error={errors.timeZone}>
              <TimeZonePicker value={v.timeZone} onChange={(zone) => set("timeZone", zone)} disabled={!canWrite} />
            </Field>
          </div>
          <ConnectionFields form={form} secretStored={secretStored} disabled={!canWrite} />
          {canWrite ? <TestConnection form={form} secretStored={secretStored} platformId={platform.id} /> : null}
        </CardContent>
        {canWrite ? (
          <CardFooter className="flex-col items-stretch gap-3 sm:flex-row sm:items-center sm:justify-end">
            <div className="sm:mr-auto">
              <FormAlert message={apiError} />
            </div>
            <Button
              variant="ghost"
              disabled={!dirty || pending}
              onClick={() => {
                form.setValues(saved);
                form.setErrors({});
                setApiError(null);
              }}
            >
              Discard changes
            </Button>
            <Button type="submit" loading={pending} disabled={!dirty}>
              {pending ? null : <Save aria-hidden />}
              Save changes
            </Button>
          </CardFooter>
        ) : null}
      </Card>
    </form>
  );
}
