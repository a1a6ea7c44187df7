import { UserCog } from "lucide-react";
import { ComingLater } from "~/features/placeholder/ComingLater";
import { Section } from "~/ui/Section";

export const meta = () => [{ title: "Members · Toolbox" }];

export default function MembersPage() {
  return (
    <Section title="Members and invitations">
      <ComingLater
        icon={UserCog}
        what="Invite by email, apply a role preset (Administrator, Dealer, Viewer) or edit each module's permissions, and remove members."
      />
    </Section>
  );
}
