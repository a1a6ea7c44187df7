import { useParams } from "react-router";
import { PlatformApps } from "~/features/trade-platforms/apps/PlatformApps";
import { Section } from "~/ui/Section";

export const meta = () => [{ title: "Applications · Toolbox" }];

export default function PlatformAppsPage() {
  const { tradePlatformId } = useParams();
  return (
    <Section title="Applications" description="The applications that run on this platform. Switch one off to stop it here without losing its settings.">
      <PlatformApps platformId={tradePlatformId!} />
    </Section>
  );
}
