import { ServerJournal } from "~/features/logs/ServerJournal";

export const meta = () => [{ title: "Server journal · Toolbox" }];

export default ServerJournal;
