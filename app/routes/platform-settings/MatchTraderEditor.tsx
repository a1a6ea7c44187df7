import { useParams } from "react-router";
import { routeRules } from "@core/routeValidation";
import { ServerConfigEditor } from "~/features/server-config/EditorPage";
import { validatedLoader } from "~/features/routing/validatedLoader";
import { Section } from "~/ui/Section";

// Only Match-Trader servers have this editor.
// One step for both: React Router strips `loader` from the browser bundle, so neither may name the other.
const validate = validatedLoader(routeRules.tradePlatformTypeIn("MatchTrader"));
export const loader = validate;
export const clientLoader = validate;

export const meta = () => [{ title: "Match-Trader editor · Toolbox" }];

export default function MatchTraderEditorPage() {
  const { tradePlatformId } = useParams();
  return (
    <Section
      title="Match-Trader editor"
      description="Offers (each with its group) and symbols of the server. Changes are staged, shown as a diff, applied exactly as shown and recorded in the audit log."
    >
      <ServerConfigEditor platformId={tradePlatformId!} platform="MatchTrader" />
    </Section>
  );
}
