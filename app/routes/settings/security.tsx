import { ApiClientsSection } from "~/features/security/apiClients";
import { PasswordSection } from "~/features/security/password";
import { SecurityPolicySections } from "~/features/security/policy";
import { TwoFactorSection } from "~/features/security/twoFactor";

export const meta = () => [{ title: "Security · Toolbox" }];

export default function SecurityPage() {
  return (
    <div className="grid gap-8">
      <TwoFactorSection />
      <PasswordSection />
      <SecurityPolicySections />
      <ApiClientsSection />
    </div>
  );
}
