import { Building2 } from "lucide-react";
import { ComingLater } from "~/features/placeholder/ComingLater";
import { Section } from "~/ui/Section";

export const meta = () => [{ title: "Organization settings · Toolbox" }];

export default function OrganizationSettingsPage() {
  return (
    <Section title="Organization profile">
      <ComingLater icon={Building2} what="The organization's name, time zone and default currency." />
    </Section>
  );
}
