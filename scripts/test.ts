/**
 * `npm test`: every suite — unit, API on PostgreSQL (its storage-sensitive files on PGlite too), then browser end-to-end on a
 * fresh production build, then (COPIER_CRASH_TEST=1) the copier's crash test alone — and, as the very last line, the
 * totals over all of them.
 *
 * `TEST_NODE24=/path/to/node` (set by `.ci/run`) also runs the unit and API suites under that Node
 * binary, so CI proves the code on both LTS lines it supports (package.json `engines`).
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";

interface VitestJson {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  numFailedTestSuites: number;
  success: boolean;
  testResults: {
    name: string;
    status: string;
    message?: string;
    assertionResults: { fullName: string; status: string; failureMessages: string[] }[];
  }[];
}

const outDir = path.resolve("test-results");
fs.mkdirSync(outDir, { recursive: true });
const totals = { passed: 0, failed: 0, skipped: 0 };
/** What failed, by the label of its pass, repeated just above the totals. */
const failedPasses: string[] = [];
/**
 * Each failed test (or suite that did not load) with the first line of its error, also repeated
 * just above the totals: CI may keep only the end of the output, and a flaky test must be named.
 */
const failedTests: string[] = [];
function fail(label: string) {
  if (!failedPasses.includes(label)) failedPasses.push(label);
}

function run(cmd: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, ...env } });
  return r.status ?? 1;
}

/** One Vitest run over `projects`, added to the totals; `node` runs Vitest under another Node binary. */
function vitest(label: string, file: string, projects: string[], node?: string) {
  const report = path.join(outDir, `${file}.json`);
  fs.rmSync(report, { force: true });
  const args = ["run", ...projects.flatMap((p) => ["--project", p]), "--reporter=default", "--reporter=json", `--outputFile.json=${report}`];
  const status = node ? run(node, [path.resolve("node_modules/vitest/vitest.mjs"), ...args]) : run("npx", ["vitest", ...args]);
  if (!fs.existsSync(report)) {
    console.error(`\n${label}: Vitest produced no report (exit ${status}).`);
    totals.failed += 1;
    fail(label);
    return;
  }
  const result = JSON.parse(fs.readFileSync(report, "utf8")) as VitestJson;
  totals.passed += result.numPassedTests;
  // A suite that failed to load counts as a failure even when it reported no test.
  totals.failed += result.numFailedTests + (result.numFailedTests === 0 ? result.numFailedTestSuites : 0);
  totals.skipped += result.numPendingTests + result.numTodoTests;
  if (status !== 0 || !result.success) fail(label);
  for (const suite of result.testResults) {
    const file = path.relative(process.cwd(), suite.name);
    const failed = suite.assertionResults.filter((t) => t.status === "failed");
    for (const t of failed) failedTests.push(`${label} · ${file} › ${t.fullName}: ${firstLine(t.failureMessages[0])}`);
    if (suite.status === "failed" && failed.length === 0) failedTests.push(`${label} · ${file}: ${firstLine(suite.message)}`);
  }
}

function firstLine(message: string | undefined) {
  // Vitest keeps the terminal's colours in its messages.
  const line =
    stripVTControlCharacters(message ?? "")
      .trim()
      .split("\n")[0] ?? "";
  return line.length > 300 ? `${line.slice(0, 300)}…` : line || "(no message)";
}

/**
 * The production build the browser tests need, started now and run beside the unit and API suites
 * (no test before the browser ones reads build/): those suites mostly wait on databases, buses and
 * timers, so the build's minute of CPU costs them little and no longer adds to the total.
 * Its output goes to a log, printed whole if it fails.
 */
function startBuild(): Promise<{ status: number; log: string }> {
  const log = path.join(outDir, "build.log");
  const out = fs.openSync(log, "w");
  const child = spawn("npm", ["run", "--silent", "build"], { stdio: ["ignore", out, out] });
  return new Promise((resolve) => {
    child.once("error", () => resolve({ status: 1, log }));
    child.once("exit", (code) => {
      fs.closeSync(out);
      resolve({ status: code ?? 1, log });
    });
  });
}
/**
 * `.ci/run` builds the app while lint finishes (a core is free then) and says so with
 * TOOLBOX_BUILT=1 once that build succeeded: it is not built again beside the unit and API suites.
 */
const build = process.env.TOOLBOX_BUILT === "1" && fs.existsSync("build/server/index.js") ? Promise.resolve({ status: 0, log: "" }) : startBuild();

const UNIT_AND_API = ["unit", "unit-mocking", "server", "api-pglite", "api-postgres"];
vitest("Unit and API", "unit-api", UNIT_AND_API);

const node24 = process.env.TEST_NODE24;
if (node24) {
  const version = spawnSync(node24, ["--version"], { encoding: "utf8" }).stdout?.trim();
  const isNode24 = version?.startsWith("v24.") ?? false;
  const label = `Unit and API on Node 24${isNode24 ? ` (${version})` : ""}`;
  if (!isNode24) {
    console.error(`\n${label}: ${node24} is not a Node 24 binary (${version ? `it reports ${version}` : "it does not run"}).`);
    totals.failed += 1;
    fail(label);
  } else {
    console.log(`\n${label} …`);
    vitest(label, "unit-api-node24", UNIT_AND_API, node24);
  }
}

console.log("\nWaiting for the app's build for the browser tests (started with the unit and API suites) …");
const built = await build;
if (built.status !== 0) {
  console.error(fs.readFileSync(built.log, "utf8"));
  console.error("Build failed: browser tests not run.");
  totals.failed += 1;
  fail("Build for the browser tests");
} else {
  vitest("Browser end-to-end", "e2e", ["e2e"]);
}

// The copier's crash test loads both cores for four to ten minutes: alone, last (vitest.config.ts),
// and only when asked (COPIER_CRASH_TEST=1): with it, CI no longer fit its 25 minutes on a slower
// 2-core machine (docs/trades-copier.md).
if (process.env.COPIER_CRASH_TEST === "1") vitest("Copier crash test", "crash", ["crash"]);
else console.log("\nCopier crash test: not run (COPIER_CRASH_TEST=1 runs it, alone, last).");

if (failedTests.length) console.error(`\nFailed tests:\n${failedTests.map((t) => `  - ${t}`).join("\n")}`);
if (failedPasses.length) console.error(`\nFailed: ${failedPasses.join("; ")}.`);
const skipped = totals.skipped ? `, ${totals.skipped} skipped` : "";
console.log(`\n${totals.passed} passed, ${totals.failed} failed${skipped}`);
process.exit(failedPasses.length ? 1 : 0);
