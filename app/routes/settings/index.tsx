import { OrganizationProfileSection } from "~/features/organization-profile";

export const meta = () => [{ title: "Organization settings · Toolbox" }];

export default function OrganizationSettingsPage() {
  return <OrganizationProfileSection />;
}
