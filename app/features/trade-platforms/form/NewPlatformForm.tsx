import { useQueryClient } from "@tanstack/react-query";
import { PlugZap } from "lucide-react";
import { useRef, useState, type FormEvent } from "react";
import { Link, useNavigate } from "react-router";
import { ApiError } from "~/api";
import { TRADE_PLATFORM_TYPES } from "@core/routeValidation";
import { useCurrentOrganizationId } from "~/profile";
import { Button } from "~/ui/Button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "~/ui/Card";
import { Field } from "~/ui/Field";
import { Input } from "~/ui/Input";
import { platformApi, platformQueryKey, toListEntry } from "../platformApi";
import { PLATFORM_TYPE_LABELS, platformSettingsPath } from "../platformTypes";
import { PlatformTypeBadge } from "../PlatformTypeBadge";
import { upsertProfilePlatform } from "../profilePlatforms";
import { ChoiceCards } from "./ChoiceCards";
import { ConnectionFields } from "./ConnectionFields";
import { FormAlert } from "./FormAlert";
import { emptyPlatformForm, formErrors, NAME_MAX, newPlatformFrom } from "./platformForm";
import { TestConnection } from "./TestConnection";
import { TimeZonePicker } from "./TimeZonePicker";
import { usePlatformForm } from "./usePlatformForm";

const TYPE_HINTS = { MT4: "Manager gateway", MT5: "Web API", MatchTrader: "Broker API" } as const;

/** `/tradePlatforms/new`: type, name, time zone, connection; test it; save, connect and open its settings. */
export function NewPlatformForm() {
  const form = usePlatformForm(() => emptyPlatformForm("MT5"));
  const { values: v, errors, set } = form;
  const [pending, setPending] = useState(false);
  const [apiError, setApiError] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const organizationId = useCurrentOrganizationId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setApiError(null);
    const problems = formErrors(v);
    form.setErrors(problems);
    if (Object.keys(problems).length) {
      // Take keyboard and screen-reader users to the first thing to fix.
      requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    setPending(true);
    try {
      const created = await platformApi.create(newPlatformFrom(v));
      upsertProfilePlatform(toListEntry(created));
      queryClient.setQueryData(platformQueryKey(organizationId, created.id), created);
      // Fire and forget: the form is done; the settings page takes over.
      void navigate(platformSettingsPath(created));
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return;
      setApiError(error instanceof ApiError && error.status ? error.message : "Toolbox's service did not answer. Try again in a moment.");
    } finally {
      setPending(false);
    }
  }

  return (
    <form ref={formRef} onSubmit={submit} noValidate className="grid max-w-4xl gap-6">
      <Card>
        <CardHeader>
          <CardTitle>Platform</CardTitle>
          <CardDescription>What kind of server it is and how your team will know it.</CardDescription>
        </CardHeader>
        <CardContent className="grid gap-5">
          <ChoiceCards
            legend="Type"
            name="type"
            value={v.type}
            onChange={(type) => set("type", type)}
            choices={TRADE_PLATFORM_TYPES.map((type) => ({
              value: type,
              icon: <PlatformTypeBadge type={type} />,
              label: PLATFORM_TYPE_LABELS[type],
              description: TYPE_HINTS[type],
            }))}
          />
          <div className="grid items-start gap-4 sm:grid-cols-2">
            <Field label="Name" error={errors.name} description="Shown in the sidebar and on every screen.">
              <Input
                value={v.name}
                onChange={(e) => set("name", e.target.value)}
                maxLength={NAME_MAX + 20}
                placeholder={`e.g. ${v.type === "MatchTrader" ? "Match-Trader" : v.type} Live`}
                autoComplete="off"
              />
            </Field>
            <Field label="Server time zone" error={errors.timeZone} description="The zone the server's clock and daily sessions run in.">
              <TimeZonePicker value={v.timeZone} onChange={(zone) => set("timeZone", zone)} />
            </Field>
          </div>
        </CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle>Connection</CardTitle>
          <CardDescription>Secrets are stored encrypted and never sent back to the browser.</CardDescription>
        </CardHeader>
        <CardContent className="grid gap-5">
          <ConnectionFields form={form} />
          <TestConnection form={form} />
        </CardContent>
        <CardFooter className="flex-col items-stretch gap-3 sm:flex-row sm:items-center sm:justify-end">
          <div className="sm:mr-auto">
            <FormAlert message={apiError} />
          </div>
          <Button asChild variant="ghost">
            <Link to="/">Cancel</Link>
          </Button>
          <Button type="submit" loading={pending}>
            {pending ? null : <PlugZap aria-hidden />}
            {pending ? "Connecting…" : "Connect platform"}
          </Button>
        </CardFooter>
      </Card>
    </form>
  );
}
