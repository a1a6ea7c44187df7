import { ShieldCheck } from "lucide-react";
import { ComingLater } from "~/features/placeholder/ComingLater";
import { SecurityPolicySections } from "~/features/security/policy";
import { Section } from "~/ui/Section";

export const meta = () => [{ title: "Security · Toolbox" }];

export default function SecurityPage() {
  return (
    <div className="grid gap-8">
      <Section title="Sign-in and access">
        <ComingLater icon={ShieldCheck} what="Two-factor sign-in and API clients for machine access." />
      </Section>
      <SecurityPolicySections />
    </div>
  );
}
