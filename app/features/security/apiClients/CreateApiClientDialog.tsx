import { Copy, TriangleAlert } from "lucide-react";
import { useRef, useState, type FormEvent } from "react";
import { PRESET_ACCESS, normalizePermissions } from "@core/roles";
import { API_CLIENT_NAME_MAX, type ApiClientCreated } from "@core/schemas/apiClients";
import { ApiError } from "~/api";
import { AccessEditor, draftOf, type AccessDraft } from "~/features/members";
import { Button } from "~/ui/Button";
import { DialogContent, DialogRoot } from "~/ui/Dialog";
import { Field } from "~/ui/Field";
import { Input } from "~/ui/Input";
import { toast } from "~/ui/toast";
import { useCreateApiClient } from "./apiClientsApi";

function permissionsOf(draft: AccessDraft) {
  if (draft.role === "custom" || draft.role === "administrator") return normalizePermissions(draft.permissions);
  return normalizePermissions(PRESET_ACCESS[draft.role].permissions);
}

/** Name and permissions, then the client id and its secret, shown once. */
export function CreateApiClientDialog({ onClose }: { onClose: () => void }) {
  const [name, setName] = useState("");
  const [draft, setDraft] = useState<AccessDraft>(draftOf("custom", { users: ["read"] }));
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<ApiClientCreated | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const create = useCreateApiClient();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    if (!name.trim()) {
      setError("Give the client a name, e.g. the system that will use it.");
      input.current?.focus();
      return;
    }
    const permissions = permissionsOf(draft);
    if (Object.keys(permissions).length === 0) {
      setError("Give the client at least one permission.");
      return;
    }
    try {
      setCreated(await create.mutateAsync({ name: name.trim(), permissions }));
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) return;
      setError(e instanceof ApiError && e.status ? e.message : "Toolbox's service does not answer. Try again in a moment.");
    }
  }

  const copy = (what: string, value: string) => void navigator.clipboard?.writeText(value).then(() => toast({ title: `${what} copied`, color: "success" }));

  if (created) {
    return (
      <DialogRoot open onOpenChange={(open) => !open && onClose()}>
        <DialogContent
          title={`API client "${created.name}" created`}
          description="It gets access tokens with these credentials (client credentials grant). docs/api.md shows how."
          className="max-w-2xl"
          footer={<Button onClick={onClose}>I have saved the secret</Button>}
        >
          <div className="grid gap-3">
            <p className="flex items-start gap-2 rounded-md border border-warning/50 bg-warning/10 p-3 text-sm" role="alert">
              <TriangleAlert aria-hidden className="mt-0.5 size-4 shrink-0" />
              Copy the secret now: you will not see it again. Toolbox keeps only a hash of it. If it is lost, revoke this client and create another.
            </p>
            {(
              [
                ["Client id", created.clientId],
                ["Client secret", created.clientSecret],
              ] as const
            ).map(([label, value]) => (
              <div key={label} className="grid gap-1.5">
                <span className="text-sm font-medium">{label}</span>
                <div className="flex gap-2">
                  <Input readOnly value={value} aria-label={label} onFocus={(e) => e.target.select()} className="font-mono text-xs" />
                  <Button variant="secondary" aria-label={`Copy the ${label.toLowerCase()}`} onClick={() => copy(label, value)}>
                    <Copy aria-hidden />
                    Copy
                  </Button>
                </div>
              </div>
            ))}
          </div>
        </DialogContent>
      </DialogRoot>
    );
  }

  return (
    <DialogRoot open onOpenChange={(open) => !open && onClose()}>
      <DialogContent
        title="New API client"
        description="Machine access to this organization through the API, with the permissions you choose. You cannot give more than you have yourself."
        className="max-w-2xl"
        initialFocus={input}
      >
        <form onSubmit={submit} noValidate className="grid gap-4">
          <Field label="Name" error={error}>
            <Input
              ref={input}
              value={name}
              onChange={(e) => {
                setName(e.target.value);
                if (error) setError(null);
              }}
              autoComplete="off"
              placeholder="e.g. Nightly reporting"
              maxLength={API_CLIENT_NAME_MAX}
              required
            />
          </Field>
          <AccessEditor value={draft} onChange={setDraft} administrator={false} />
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <Button type="button" variant="secondary" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create client
            </Button>
          </div>
        </form>
      </DialogContent>
    </DialogRoot>
  );
}
