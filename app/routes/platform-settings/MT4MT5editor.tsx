import { useParams } from "react-router";
import { routeRules } from "@core/routeValidation";
import { ServerConfigEditor } from "~/features/server-config/EditorPage";
import { validatedLoader } from "~/features/routing/validatedLoader";
import { Section } from "~/ui/Section";

// Only MT4 and MT5 servers have this editor.
// One step for both: React Router strips `loader` from the browser bundle, so neither may name the other.
const validate = validatedLoader(routeRules.tradePlatformTypeIn("MT4", "MT5"));
export const loader = validate;
export const clientLoader = validate;

export const meta = () => [{ title: "MT4/MT5 editor · Toolbox" }];

export default function Mt4Mt5EditorPage() {
  const { tradePlatformType, tradePlatformId } = useParams();
  return (
    <Section
      title="MT4/MT5 editor"
      description="Groups, symbols and holidays of the server. Changes are staged, shown as a diff, applied exactly as shown and recorded in the audit log."
    >
      <ServerConfigEditor platformId={tradePlatformId!} platform={tradePlatformType === "MT4" ? "MT4" : "MT5"} />
    </Section>
  );
}
