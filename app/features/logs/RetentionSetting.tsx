import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ApiError } from "~/api";
import { useAccess, useCurrentOrganizationId } from "~/profile";
import { Button } from "~/ui/Button";
import { Field } from "~/ui/Field";
import { Input } from "~/ui/Input";
import { toast } from "~/ui/toast";
import { logsApi, logsKey } from "./logsApi";

/** How long audit records are kept: shown to readers, changed by administrators (settings write). */
export function RetentionSetting() {
  const organizationId = useCurrentOrganizationId();
  const canChange = useAccess().hasModule("settings", "write");
  const client = useQueryClient();
  const settings = useQuery({ queryKey: logsKey(organizationId, "settings"), queryFn: ({ signal }) => logsApi.settings(signal) });
  const [error, setError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (days: number) => logsApi.saveSettings({ auditRetentionDays: days }),
    onSuccess: (saved) => {
      setError(null);
      client.setQueryData(logsKey(organizationId, "settings"), saved);
      toast({ title: "Retention saved", description: `Audit records are kept ${saved.auditRetentionDays} days.`, color: "success" });
    },
    onError: (e) => setError(e instanceof ApiError ? e.message : "Could not save."),
  });
  if (!settings.data) return null;
  if (!canChange) return <p className="text-xs text-muted">Audit records are kept {settings.data.auditRetentionDays} days.</p>;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const days = new FormData(event.currentTarget).get("days");
    save.mutate(Number(typeof days === "string" ? days : NaN));
  };
  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-2" aria-label="Audit retention">
      <Field label="Keep audit records (days)" error={error ?? undefined} className="w-56">
        <Input
          name="days"
          type="number"
          inputMode="numeric"
          min={30}
          max={3650}
          defaultValue={settings.data.auditRetentionDays}
          key={settings.data.auditRetentionDays}
        />
      </Field>
      <Button type="submit" variant="secondary" loading={save.isPending}>
        Save
      </Button>
    </form>
  );
}
