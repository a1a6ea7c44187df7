import { ShieldCheck } from "lucide-react";
import { ApiClientsSection } from "~/features/security/apiClients";
import { ComingLater } from "~/features/placeholder/ComingLater";
import { Section } from "~/ui/Section";

export const meta = () => [{ title: "Security · Toolbox" }];

export default function SecurityPage() {
  return (
    <>
      <Section title="Sign-in and access">
        <ComingLater icon={ShieldCheck} what="Two-factor sign-in and whether the organization requires it, session lifetime and allowed IP ranges." />
      </Section>
      <ApiClientsSection />
    </>
  );
}
