import { Table2 } from "lucide-react";
import { routeRules } from "@core/routeValidation";
import { ComingLater } from "~/features/placeholder/ComingLater";
import { validatedLoader } from "~/features/routing/validatedLoader";
import { Section } from "~/ui/Section";

// Only Match-Trader servers have this editor.
// One step for both: React Router strips `loader` from the browser bundle, so neither may name the other.
const validate = validatedLoader(routeRules.tradePlatformTypeIn("MatchTrader"));
export const loader = validate;
export const clientLoader = validate;

export const meta = () => [{ title: "Match-Trader editor · Toolbox" }];

export default function MatchTraderEditorPage() {
  return (
    <Section title="Match-Trader editor">
      <ComingLater icon={Table2} what="Offers, groups and symbols of the Match-Trader server, with a diff before applying and every change audited." />
    </Section>
  );
}
