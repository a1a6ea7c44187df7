import { useParams } from "react-router";
import { parsePluginEditor, routeRules } from "@core/routeValidation";
import { FlexibleLeverageEditor } from "~/features/flexible-leverage/FlexibleLeverageEditor";
import { validatedLoader } from "~/features/routing/validatedLoader";
import { Section } from "~/ui/Section";

// `{product}.MT4Plugin.FlexibleLeverage` on MT4 platforms, `{product}.MT5Plugin…` on MT5 ones;
// pluginId and pluginVersion well formed (core/routeValidation.ts).
// One step for both: React Router strips `loader` from the browser bundle, so neither may name the other.
const validate = validatedLoader(routeRules.flexibleLeverageEditor);
export const loader = validate;
export const clientLoader = validate;

export const meta = () => [{ title: "Flexible Leverage · Toolbox" }];

export default function FlexibleLeveragePage() {
  const { tradePlatformId, pluginId, pluginVersion, pluginEditor } = useParams();
  const product = parsePluginEditor(pluginEditor)?.product;
  return (
    <Section
      title="Flexible Leverage"
      description={`${product} plugin ${pluginId}, version ${pluginVersion}: an ordered list of rules that set each account's leverage on the server. The preview shows what a save would change, and why.`}
    >
      <FlexibleLeverageEditor platformId={tradePlatformId!} pluginId={pluginId!} />
    </Section>
  );
}
