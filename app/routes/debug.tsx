import { DebugPage } from "~/features/debug/DebugPage";

export const meta = () => [{ title: "Diagnostics · Toolbox" }];

export default DebugPage;
