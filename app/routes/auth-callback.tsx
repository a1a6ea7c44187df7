import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Signing in · Toolbox" }];

export default function AuthCallbackPage() {
  return <Page title="Signing in" description="This area arrives in a later release." />;
}
