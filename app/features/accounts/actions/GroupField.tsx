import { useQuery } from "@tanstack/react-query";
import { useCurrentOrganizationId } from "~/profile";
import { Field } from "~/ui/Field";
import { Input } from "~/ui/Input";
import { Select } from "~/ui/Select";
import { accountsApi, platformGroupsQueryKey } from "../accountsApi";

/**
 * The group of a new or moved account: the platform's own groups (GET /api/accounts/groups, with
 * names such as `demo\retail-usd`) to choose from. While they load, or when the platform does not
 * answer, the name can be typed (the platform is the judge).
 */
export function GroupField({
  platformId,
  value,
  onChange,
  error,
  description,
}: {
  platformId: string;
  value: string;
  onChange: (group: string) => void;
  error?: string;
  description?: string;
}) {
  const organizationId = useCurrentOrganizationId();
  const groups = useQuery({
    queryKey: platformGroupsQueryKey(organizationId, platformId),
    queryFn: ({ signal }) => accountsApi.groups(platformId, signal),
    enabled: platformId !== "",
    staleTime: 60_000,
  });
  if (groups.data && groups.data.length > 0) {
    const options = groups.data.map((g) => ({ value: g.name, label: `${g.name} · ${g.currency} · 1:${g.defaultLeverage}` }));
    // A group the account is in that the platform no longer lists keeps an entry.
    if (value && !options.some((o) => o.value === value)) options.unshift({ value, label: value });
    return (
      <Field label="Group" error={error} description={description}>
        <Select value={value || undefined} onValueChange={onChange} placeholder="Choose a group" options={options} />
      </Field>
    );
  }
  return (
    <Field
      label="Group"
      error={error}
      description={
        description ?? (platformId === "" ? "Choose the platform first." : groups.isPending ? "Loading the platform's groups…" : "The platform's group name.")
      }
    >
      <Input value={value} onChange={(e) => onChange(e.target.value)} placeholder="e.g. real\standard" autoComplete="off" spellCheck={false} />
    </Field>
  );
}
