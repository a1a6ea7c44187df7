import { useParams } from "react-router";
import { PluginsPage } from "~/features/plugins/PluginsPage";
import { Section } from "~/ui/Section";

export const meta = () => [{ title: "Plugins · Toolbox" }];

export default function PlatformPluginsPage() {
  const { tradePlatformType, tradePlatformId } = useParams();
  return (
    <Section title="Plugins" description="The plugins found on the trading server. Changes are made on the server and recorded in the audit log.">
      <PluginsPage platformId={tradePlatformId!} platformType={tradePlatformType} />
    </Section>
  );
}
