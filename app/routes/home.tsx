import { OverviewPage } from "~/features/overview/OverviewPage";

export const meta = () => [{ title: "Overview · Toolbox" }];

export default OverviewPage;
