/**
 * Toolbox as `npm start` runs it (server/start.ts: configuration from the environment, then
 * startToolbox) but without the pages, so API tests can run it as a process of its own without a
 * production build (tests/helpers/toolboxProcess.ts). No signal handlers: the tests that use it
 * end it with SIGKILL, as a crash would, or SIGTERM.
 */
import { loadConfig } from "../../server/config.ts";
import { startToolbox } from "../../server/main.ts";

// TOOLBOX_TEST_LOUD=1: logs and the start-up banner, as `npm start` prints them (startupBanner.test.ts),
// the banner waiting longer for the platforms on a busy test machine.
const loud = process.env.TOOLBOX_TEST_LOUD === "1";
await startToolbox(loadConfig(), { web: false, quiet: !loud, bannerWaitMs: loud ? 120_000 : undefined });
