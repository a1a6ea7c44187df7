import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Users · Toolbox" }];

export default function UsersPage() {
  return <Page title="Users" description="This area arrives in a later release." />;
}
