import { useState } from "react";
import type { MemberView } from "@core/schemas/members";
import { useAccess } from "~/profile";
import { GridSkeleton } from "~/ui/grid";
import { Section } from "~/ui/Section";
import { InvitationList } from "./InvitationList";
import { InviteForm } from "./InviteForm";
import { MemberDialog } from "./MemberDialog";
import { MembersGrid } from "./MembersGrid";
import { useInvitations, useMembers } from "./membersApi";
import { Outbox } from "./Outbox";

/** /settings/members: members and their roles, pending invitations, inviting (members:write). */
export function MembersPage() {
  const access = useAccess();
  const canRead = access.hasModule("members", "read");
  const canWrite = access.hasModule("members", "write");
  const members = useMembers();
  const invitations = useInvitations();
  const [open, setOpen] = useState<MemberView | null>(null);

  if (!canRead) {
    return (
      <Section title="Members and invitations">
        <p className="text-sm text-muted">
          You need the &quot;read&quot; permission on the &quot;members&quot; module to see this organization&apos;s members. Ask its administrator.
        </p>
      </Section>
    );
  }
  return (
    <Section title="Members and invitations" description="Who works in this organization, with which role. Changes apply at once.">
      {members.data ? <MembersGrid members={members.data} onOpen={canWrite ? setOpen : undefined} /> : <GridSkeleton label="Members" className="h-48" />}
      <h3 className="text-base font-semibold">Pending invitations</h3>
      {invitations.data ? <InvitationList invitations={invitations.data} canWrite={canWrite} /> : null}
      {canWrite ? (
        <>
          <Outbox />
          <InviteForm />
        </>
      ) : null}
      {open ? <MemberDialog member={open} onClose={() => setOpen(null)} /> : null}
    </Section>
  );
}
