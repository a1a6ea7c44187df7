import { useState } from "react";
import { canManage } from "@core/grants";
import { ROLE_LABELS } from "@core/roles";
import type { MemberView } from "@core/schemas/members";
import { Button } from "~/ui/Button";
import { DialogContent, DialogRoot } from "~/ui/Dialog";
import { toast } from "~/ui/toast";
import { AccessEditor, choiceOf, draftOf } from "./AccessEditor";
import { useChangeAccess, useRemoveMember, useResetTwoFactor } from "./membersApi";
import { useCaller } from "./useCaller";

/**
 * Change a member's role or permissions, or remove them. Only a member the person could have
 * given their access to, never themselves (core/grants.ts): otherwise the dialog says why and
 * offers no change. The API refuses to leave no administrator.
 */
export function MemberDialog({ member, onClose }: { member: MemberView; onClose: () => void }) {
  const [draft, setDraft] = useState(() => draftOf(member.role, member.permissions));
  const [confirm, setConfirm] = useState<"remove" | "resetTwoFactor" | null>(null);
  const confirmRemove = confirm === "remove";
  const setConfirmRemove = (on: boolean) => setConfirm(on ? "remove" : null);
  const change = useChangeAccess();
  const remove = useRemoveMember();
  const resetTwoFactor = useResetTwoFactor();
  const who = member.name ?? member.email ?? member.sub;
  const caller = useCaller();
  const managed = canManage(
    caller.access,
    { admin: member.admin, permissions: member.permissions },
    {
      self: member.sub === caller.sub,
      action: `change, remove or reset the two-factor sign-in of ${who}`,
      holds: "they have",
    },
  );

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

  const resetMemberTwoFactor = async () => {
    const done = await resetTwoFactor.mutateAsync(member.sub).then(
      () => true,
      () => false,
    );
    if (!done) return;
    toast({ title: "Two-factor reset", description: `${who} is signed out and sets up a new device at their next sign-in.`, color: "success" });
    setConfirm(null);
  };

  return (
    <DialogRoot open onOpenChange={(open) => !open && onClose()}>
      <DialogContent
        title={who}
        description={member.email && member.name ? member.email : undefined}
        className="max-w-2xl"
        footer={
          confirm === "resetTwoFactor" ? (
            <>
              <Button variant="secondary" onClick={() => setConfirm(null)}>
                Keep
              </Button>
              <Button variant="danger" loading={resetTwoFactor.isPending} onClick={() => void resetMemberTwoFactor()}>
                Reset two-factor of {who}
              </Button>
            </>
          ) : confirmRemove ? (
            <>
              <Button variant="secondary" onClick={() => setConfirmRemove(false)}>
                Keep
              </Button>
              <Button variant="danger" loading={remove.isPending} onClick={() => void removeMember()}>
                Remove {who}
              </Button>
            </>
          ) : managed.allowed ? (
            <>
              <Button variant="secondary" onClick={() => setConfirm("resetTwoFactor")}>
                Reset two-factor
              </Button>
              <Button variant="secondary" onClick={() => setConfirmRemove(true)}>
                Remove from organization
              </Button>
              <Button loading={change.isPending} onClick={() => void save()}>
                Save role
              </Button>
            </>
          ) : undefined
        }
      >
        {confirm === "resetTwoFactor" ? (
          <p className="text-sm" role="alert">
            For a lost phone: {who}'s two-factor secret and recovery codes are removed, they are signed out everywhere at once, and at their next sign-in they
            must set up a new device before they can continue. Every organization they belong to is told, and so are they, by e-mail when Toolbox sends e-mail.
          </p>
        ) : confirmRemove ? (
          <p className="text-sm" role="alert">
            {who} will lose access to this organization at once, including open live views. Their account stays.
          </p>
        ) : managed.allowed ? (
          <AccessEditor value={draft} onChange={setDraft} caller={caller.access} />
        ) : (
          <p className="text-sm" role="note">
            {ROLE_LABELS[member.role]}. {managed.reason}
          </p>
        )}
      </DialogContent>
    </DialogRoot>
  );
}
