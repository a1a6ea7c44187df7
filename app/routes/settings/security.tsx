import { ApiClientsSection } from "~/features/security/apiClients";
import { TwoFactorSection } from "~/features/security/twoFactor";

export const meta = () => [{ title: "Security · Toolbox" }];

export default function SecurityPage() {
  return (
    <div className="grid gap-8">
      <TwoFactorSection />
      <ApiClientsSection />
    </div>
  );
}
