import { AcceptInvitation } from "~/features/members";
import { CreateOrganizationForm } from "~/features/organizations/CreateOrganizationForm";
import { OrganizationList } from "~/features/organizations/OrganizationList";
import { Section } from "~/ui/Section";

export const meta = () => [{ title: "Organizations · Toolbox" }];

export default function OrganizationsPage() {
  return (
    <Section title="Your organizations" description="You work in one organization at a time. Switching changes every screen's data.">
      <AcceptInvitation />
      <OrganizationList />
      <CreateOrganizationForm />
    </Section>
  );
}
