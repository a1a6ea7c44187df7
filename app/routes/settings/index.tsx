import { DisplaySection } from "~/features/display/DisplaySection";
import { OrganizationProfileSection } from "~/features/organization-profile";
import { TimeZonePicker } from "~/features/trade-platforms/form/TimeZonePicker";

export const meta = () => [{ title: "Organization settings · Toolbox" }];

export default function OrganizationSettingsPage() {
  return (
    <div className="grid gap-8">
      <OrganizationProfileSection TimeZonePicker={TimeZonePicker} />
      <DisplaySection TimeZonePicker={TimeZonePicker} />
    </div>
  );
}
