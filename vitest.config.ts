import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// Separate from vite.config.ts: the React Router plugin must not run under Vitest.
const alias = {
  "~": fileURLToPath(new URL("./app", import.meta.url)),
  "@core": fileURLToPath(new URL("./core", import.meta.url)),
};

/**
 * The API and browser tests trade on simulated servers at the real time, any day of the week:
 * forex and indices close at weekends, so their simulated markets are held open on the real
 * clock (decision 0084). A test that moves a server's clock (the simulator's `serverClock`) gets
 * the real sessions back, and the server tests keep them throughout.
 */
const MARKETS_OPEN = { TOOLBOX_SIMULATED_MARKETS_ALWAYS_OPEN: "1" };

/** The test files under `dir` (relative to the project), and their sources. */
function testFiles(dir: string): { file: string; source: string }[] {
  const root = fileURLToPath(new URL(".", import.meta.url));
  return fs
    .readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => /\.test\.tsx?$/.test(f))
    .map((f) => ({ file: path.posix.join(dir, f.split(path.sep).join("/")), source: fs.readFileSync(path.join(root, dir, f), "utf8") }));
}

/**
 * Unit files that replace modules (`vi.mock`, `vi.doMock`, `vi.resetModules`) need a module graph of
 * their own; the others share their worker's (`isolate: false`), which took the unit run from 130
 * to 72 s on a slow two-core machine (jsdom and the app's modules are set up once per worker).
 */
const UNIT_FILES = testFiles("tests/unit");
const UNIT_MOCKING = UNIT_FILES.filter((f) => /\bvi\.(mock|doMock|resetModules)\(/.test(f.source)).map((f) => f.file);

/**
 * Every API file runs on PostgreSQL; those whose storage differs between the two databases (raw
 * SQL, locks and leases, money written once, migrations, JSON read back) say so on a line
 * `// Databases: PGlite and PostgreSQL (…why…)` and run on PGlite as well (decision 0095). The rest
 * of the app meets PGlite in the server tests and in every browser test.
 */
const API_ON_PGLITE = testFiles("tests/api")
  .filter((f) => /^\/\/ Databases: PGlite and PostgreSQL\b/m.test(f.source))
  .map((f) => f.file);

/**
 * The longest files, longest first (measured on a slow two-core machine, 2026-11-28). On a clean
 * clone Vitest has no durations and starts the largest files first, so short files split off a long
 * one (the accessibility screens) ran last, in parallel, as the run's long pole.
 */
const LONGEST_FIRST = [
  "tests/e2e/accessibilityScreens2.test.ts",
  "tests/e2e/accessibility.test.ts",
  "tests/e2e/accessibilityScreens1.test.ts",
  "tests/e2e/tradesCopierLinks.test.ts",
  "tests/e2e/dealingSchedule.test.ts",
  "tests/e2e/dealerDesk.test.ts",
  "tests/e2e/customers.test.ts",
  "tests/e2e/signIn.test.ts",
  "tests/e2e/password.test.ts",
  "tests/e2e/members.test.ts",
  "tests/e2e/flexibleLeverage.test.ts",
  "tests/e2e/twoFactor.test.ts",
  "tests/api/feedOwnership.test.ts",
  "tests/api/crashRecovery.test.ts",
  "tests/api/idp.test.ts",
  "tests/api/platformsLive.test.ts",
];

/** Vitest's order, with the files above moved to the front of their project's, in the order given. */
class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const projects = [...new Set(sorted.map((f) => f.project.name))];
    const rank = (f: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex((p) => f.moduleId.endsWith(p));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    return sorted
      .map((file, index) => ({ file, index }))
      .sort((a, b) => projects.indexOf(a.file.project.name) - projects.indexOf(b.file.project.name) || rank(a.file) - rank(b.file) || a.index - b.index)
      .map(({ file }) => file);
  }
}

/** Runs in its own project ("crash"), alone, after the other suites (scripts/test.ts). */
const COPIER_CRASH_TEST = "tests/api/tradesCopierCrash.test.ts";

export default defineConfig({
  resolve: { alias },
  test: {
    // Two files at a time, whatever the core count: Vitest's default on two cores is one, and most
    // API and server tests wait (on PostgreSQL, NATS, timers) more than they compute. On CI's
    // two cores this took the unit, server and API run from 12.5 to 7.5 minutes, all green. The
    // browser tests run two files at a time too, each against a Toolbox of its own (below).
    maxWorkers: 2,
    sequence: { sequencer: LongestFirstSequencer },
    // The server and API projects share each worker's module graph between files
    // (`isolate: false`): every API file imported Fastify, the identity provider, Drizzle and the
    // modules again, 200 s of the API run's worker time. Tests build their own app, database and
    // bus per file, and no test mocks modules or changes process.env; module-level state in
    // server/ is kept per app (WeakMaps keyed by the context). API on PGlite: 505 s → 147 s.
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.{ts,tsx}"],
          exclude: UNIT_MOCKING,
          isolate: false,
          // jsdom by default; files that need no DOM start with `// @vitest-environment node`
          // (setting up jsdom costs about a second per file on two cores).
          environment: "jsdom",
          // Property tests run hundreds of cases: on a loaded two-core machine 5 s is not enough.
          testTimeout: 20_000,
        },
      },
      {
        resolve: { alias },
        test: {
          // The unit files that replace modules, each in a module graph of its own (above).
          name: "unit-mocking",
          include: UNIT_MOCKING,
          environment: "jsdom",
          testTimeout: 20_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "server",
          isolate: false,
          include: ["tests/server/**/*.test.ts"],
          environment: "node",
          testTimeout: 30_000,
          // Opening and migrating a database can take seconds on a busy two-core machine.
          hookTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "api-pglite",
          isolate: false,
          include: API_ON_PGLITE,
          exclude: [COPIER_CRASH_TEST],
          environment: "node",
          env: { TOOLBOX_TEST_DB: "pglite", ...MARKETS_OPEN },
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "api-postgres",
          isolate: false,
          include: ["tests/api/**/*.test.ts"],
          exclude: [COPIER_CRASH_TEST],
          environment: "node",
          env: { TOOLBOX_TEST_DB: "postgres", ...MARKETS_OPEN },
          globalSetup: ["tests/helpers/postgresGlobalSetup.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          // The Trades Copier's crash test (Toolbox processes killed inside a burst, PostgreSQL and
          // NATS): about four minutes that load both cores, so it runs alone, after the others —
          // beside the API files it made their timing-sensitive tests fail.
          name: "crash",
          include: [COPIER_CRASH_TEST],
          environment: "node",
          env: { TOOLBOX_TEST_DB: "postgres", ...MARKETS_OPEN },
          globalSetup: ["tests/helpers/postgresGlobalSetup.ts"],
          maxWorkers: 1,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "e2e",
          include: ["tests/e2e/**/*.test.ts"],
          // Files share their worker's module graph (playwright-core, axe): about 2 s of imports a
          // file on a slow two-core machine. Each file still has its own browser connection, pages
          // and people; nothing here mocks a module.
          isolate: false,
          environment: "node",
          env: MARKETS_OPEN,
          globalSetup: ["tests/e2e/globalSetup.ts"],
          // Two files at a time, each against its own worker's Toolbox (tests/e2e/globalSetup.ts
          // starts one per worker, TOOLBOX_E2E_SERVERS, default 2): a browser test mostly waits on
          // its page and its server, so two side by side keep both cores busy.
          maxWorkers: Math.max(1, Number(process.env.TOOLBOX_E2E_SERVERS) || 2),
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
