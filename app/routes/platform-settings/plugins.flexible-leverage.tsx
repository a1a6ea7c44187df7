import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Flexible Leverage · Toolbox" }];

export default function FlexibleLeveragePage() {
  return <Page title="Flexible Leverage" description="This area arrives in a later release." />;
}
