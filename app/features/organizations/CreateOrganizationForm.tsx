import { Plus } from "lucide-react";
import { useRef, useState, type FormEvent } from "react";
import { ApiError } from "~/api";
import { useSwitchOrganization } from "~/profile";
import { Button } from "~/ui/Button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "~/ui/Card";
import { Field } from "~/ui/Field";
import { Input } from "~/ui/Input";
import { toast } from "~/ui/toast";
import { createOrganization } from "./createOrganization";
import { ORGANIZATION_NAME_MAX, organizationNameError } from "./organizationName";

/** Create an organization; the creator becomes its administrator and may switch to it at once. */
export function CreateOrganizationForm() {
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const switchTo = useSwitchOrganization();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const invalid = organizationNameError(name);
    setError(invalid);
    // Back to the field, so keyboard and screen-reader users land on what needs fixing.
    if (invalid) {
      input.current?.focus();
      return;
    }
    setPending(true);
    try {
      const created = await createOrganization(name);
      setName("");
      toast({
        title: "Organization created",
        description: `You administer ${created.name}.`,
        color: "success",
        action: { label: "Switch to it", onClick: () => switchTo(created.id) },
      });
    } catch (e) {
      // A 401 is handled by the client (sign in again); anything else is this form's to show.
      if (e instanceof ApiError && e.status === 401) return;
      setError(e instanceof ApiError && e.status ? e.message : "Toolbox's service does not answer. Try again in a moment.");
      input.current?.focus();
    } finally {
      setPending(false);
    }
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>New organization</CardTitle>
        <CardDescription>An empty workspace with you as its administrator. Invite members once it exists.</CardDescription>
      </CardHeader>
      <CardContent>
        <form onSubmit={submit} noValidate className="flex flex-col gap-3 sm:flex-row sm:items-start">
          <Field label="Name" error={error} className="flex-1">
            <Input
              ref={input}
              value={name}
              onChange={(e) => {
                setName(e.target.value);
                if (error) setError(null);
              }}
              maxLength={ORGANIZATION_NAME_MAX + 20}
              autoComplete="organization"
              placeholder="e.g. Acme Brokerage"
              required
            />
          </Field>
          <Button type="submit" loading={pending} className="sm:mt-[1.375rem]">
            {pending ? null : <Plus aria-hidden />}
            Create organization
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}
