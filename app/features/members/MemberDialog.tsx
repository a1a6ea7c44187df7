import { useState } from "react";
import { ROLE_LABELS } from "@core/roles";
import type { MemberView } from "@core/schemas/members";
import { Button } from "~/ui/Button";
import { DialogContent, DialogRoot } from "~/ui/Dialog";
import { toast } from "~/ui/toast";
import { AccessEditor, choiceOf, draftOf } from "./AccessEditor";
import { useChangeAccess, useRemoveMember } from "./membersApi";

/** Change a member's role or permissions, or remove them. The API refuses to leave no administrator. */
export function MemberDialog({ member, onClose }: { member: MemberView; onClose: () => void }) {
  const [draft, setDraft] = useState(() => draftOf(member.role, member.permissions));
  const [confirmRemove, setConfirmRemove] = useState(false);
  const change = useChangeAccess();
  const remove = useRemoveMember();
  const who = member.name ?? member.email ?? member.sub;

  const save = async () => {
    const saved = await change.mutateAsync({ sub: member.sub, access: choiceOf(draft) }).catch(() => null);
    if (!saved) return;
    toast({ title: "Role changed", description: `${who} is now ${ROLE_LABELS[saved.role]}.`, color: "success" });
    onClose();
  };
  const removeMember = async () => {
    const done = await remove.mutateAsync(member.sub).then(
      () => true,
      () => false,
    );
    if (!done) return;
    toast({ title: "Member removed", description: `${who} no longer has access to this organization.`, color: "success" });
    onClose();
  };

  return (
    <DialogRoot open onOpenChange={(open) => !open && onClose()}>
      <DialogContent
        title={who}
        description={member.email && member.name ? member.email : undefined}
        className="max-w-2xl"
        footer={
          confirmRemove ? (
            <>
              <Button variant="secondary" onClick={() => setConfirmRemove(false)}>
                Keep
              </Button>
              <Button variant="danger" loading={remove.isPending} onClick={() => void removeMember()}>
                Remove {who}
              </Button>
            </>
          ) : (
            <>
              <Button variant="secondary" onClick={() => setConfirmRemove(true)}>
                Remove from organization
              </Button>
              <Button loading={change.isPending} onClick={() => void save()}>
                Save role
              </Button>
            </>
          )
        }
      >
        {confirmRemove ? (
          <p className="text-sm" role="alert">
            {who} will lose access to this organization at once, including open live views. Their account stays.
          </p>
        ) : (
          <AccessEditor value={draft} onChange={setDraft} />
        )}
      </DialogContent>
    </DialogRoot>
  );
}
