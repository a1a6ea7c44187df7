import { CustomersPage } from "~/features/customers/CustomersPage";

export const meta = () => [{ title: "Customers · Toolbox" }];

export default function CustomersRoute() {
  return <CustomersPage />;
}
