import { AccountsPage } from "~/features/accounts/AccountsPage";

export const meta = () => [{ title: "Users · Toolbox" }];

export default AccountsPage;
