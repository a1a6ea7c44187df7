import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Signed out · Toolbox" }];

export default function LogoutCallbackPage() {
  return <Page title="Signed out" description="This area arrives in a later release." />;
}
