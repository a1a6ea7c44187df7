import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Page not found · Toolbox" }];

export default function NotFoundPage() {
  return <Page title="Page not found" description="This area arrives in a later release." />;
}
