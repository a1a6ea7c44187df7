import { CopierStatusPage } from "~/features/trades-copier/status/CopierStatusPage";

export const meta = () => [{ title: "Copier status · Toolbox" }];

export default function CopierStatusRoute() {
  return <CopierStatusPage />;
}
