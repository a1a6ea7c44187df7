/**
 * Toolbox as `npm start` runs it (server/start.ts: configuration from the environment, then
 * startToolbox) but without the pages, so API tests can run it as a process of its own without a
 * production build (tests/helpers/toolboxProcess.ts). No signal handlers: the tests that use it
 * end it with SIGKILL, as a crash would, or SIGTERM.
 */
import { loadConfig } from "../../server/config.ts";
import { startToolbox } from "../../server/main.ts";

await startToolbox(loadConfig(), { web: false, quiet: true });
