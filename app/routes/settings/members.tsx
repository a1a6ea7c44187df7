import { MembersPage } from "~/features/members";

export const meta = () => [{ title: "Members · Toolbox" }];

export default function MembersRoute() {
  return <MembersPage />;
}
