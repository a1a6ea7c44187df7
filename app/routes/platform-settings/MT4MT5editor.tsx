import { Table2 } from "lucide-react";
import { routeRules } from "@core/routeValidation";
import { ComingLater } from "~/features/placeholder/ComingLater";
import { validatedLoader } from "~/features/routing/validatedLoader";
import { Section } from "~/ui/Section";

// Only MT4 and MT5 servers have this editor.
// One step for both: React Router strips `loader` from the browser bundle, so neither may name the other.
const validate = validatedLoader(routeRules.tradePlatformTypeIn("MT4", "MT5"));
export const loader = validate;
export const clientLoader = validate;

export const meta = () => [{ title: "MT4/MT5 editor · Toolbox" }];

export default function Mt4Mt5EditorPage() {
  return (
    <Section title="MT4/MT5 editor">
      <ComingLater icon={Table2} what="Groups, symbols and holidays of the server, with a diff before applying and every change audited." />
    </Section>
  );
}
