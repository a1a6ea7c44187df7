import { useParams } from "react-router";
import { GeneralSettings } from "~/features/trade-platforms/settings/GeneralSettings";
import { Section } from "~/ui/Section";

export const meta = () => [{ title: "General · Toolbox" }];

export default function PlatformGeneralPage() {
  const { tradePlatformId } = useParams();
  return (
    <Section title="General">
      <GeneralSettings platformId={tradePlatformId!} />
    </Section>
  );
}
