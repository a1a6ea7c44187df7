import { useQueryClient } from "@tanstack/react-query";
import { Trash2 } from "lucide-react";
import { useId, useState, type FormEvent } from "react";
import { useNavigate } from "react-router";
import { ApiError } from "~/api";
import { useCurrentOrganizationId, useProfileStore } from "~/profile";
import { Button } from "~/ui/Button";
import { DialogClose, DialogContent, DialogRoot, DialogTrigger } from "~/ui/Dialog";
import { Field } from "~/ui/Field";
import { Input } from "~/ui/Input";
import { FormAlert } from "~/ui/FormAlert";
import { appsQueryKey } from "../apps/PlatformApps";
import { platformApi, platformQueryKey } from "../platformApi";
import { deleteConfirmed } from "./deleteConfirmation";

export const DELETED_PATH = "/tradePlatforms/tradePlatformDeletedSuccessfully";

/** Delete, confirmed by typing the platform's name; the button stays disabled until it matches exactly. */
export function DeletePlatformDialog({ platform }: { platform: { id: string; name: string } }) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const formId = useId();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const organizationId = useCurrentOrganizationId();
  const confirmed = deleteConfirmed(typed, platform.name);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!confirmed) return;
    setPending(true);
    setError(null);
    try {
      await platformApi.remove(platform.id, typed);
      useProfileStore.getState().removeTradePlatform(platform.id);
      queryClient.removeQueries({ queryKey: platformQueryKey(organizationId, platform.id) });
      queryClient.removeQueries({ queryKey: appsQueryKey(organizationId, platform.id) });
      // Replace: the settings page no longer exists, Back must not return to it. Not awaited: the
      // platform is gone whatever the navigation does, and a failed navigation is not a failed delete.
      void navigate(DELETED_PATH, { replace: true, state: { name: platform.name } });
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) return;
      setError(e instanceof ApiError && e.status ? e.message : "Toolbox's service did not answer. Nothing was deleted; try again.");
      setPending(false);
    }
  }

  return (
    <DialogRoot
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        setTyped("");
        setError(null);
      }}
    >
      <DialogTrigger asChild>
        <Button variant="danger">
          <Trash2 aria-hidden />
          Delete platform
        </Button>
      </DialogTrigger>
      <DialogContent
        title={`Delete ${platform.name}?`}
        description="Toolbox disconnects from it and forgets its connection, settings, application assignments and mirrored accounts. Nothing changes on the server itself. This cannot be undone."
        footer={
          <>
            <DialogClose asChild>
              <Button variant="secondary">Cancel</Button>
            </DialogClose>
            <Button type="submit" form={formId} variant="danger" disabled={!confirmed} loading={pending}>
              Delete platform
            </Button>
          </>
        }
      >
        <form id={formId} onSubmit={submit} noValidate className="grid gap-3">
          <Field
            label={
              <>
                Type <span className="font-mono font-semibold">{platform.name}</span> to confirm
              </>
            }
          >
            <Input value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" spellCheck={false} />
          </Field>
          <FormAlert message={error} />
        </form>
      </DialogContent>
    </DialogRoot>
  );
}
