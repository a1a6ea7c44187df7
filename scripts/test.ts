/**
 * `npm test`: every suite — unit, API on PGlite and on PostgreSQL, then browser end-to-end on a
 * fresh production build — and, as the very last line, the totals over all of them.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

interface VitestJson {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  numFailedTestSuites: number;
  success: boolean;
}

const outDir = path.resolve("test-results");
fs.mkdirSync(outDir, { recursive: true });
const totals = { passed: 0, failed: 0, skipped: 0 };
let ok = true;

function run(cmd: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, ...env } });
  return r.status ?? 1;
}

function vitest(label: string, projects: string[]) {
  const file = path.join(outDir, `${label}.json`);
  fs.rmSync(file, { force: true });
  const status = run("npx", [
    "vitest",
    "run",
    ...projects.flatMap((p) => ["--project", p]),
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${file}`,
  ]);
  if (!fs.existsSync(file)) {
    console.error(`\n${label}: Vitest produced no report (exit ${status}).`);
    totals.failed += 1;
    ok = false;
    return;
  }
  const report = JSON.parse(fs.readFileSync(file, "utf8")) as VitestJson;
  totals.passed += report.numPassedTests;
  // A suite that failed to load counts as a failure even when it reported no test.
  totals.failed += report.numFailedTests + (report.numFailedTests === 0 ? report.numFailedTestSuites : 0);
  totals.skipped += report.numPendingTests + report.numTodoTests;
  if (status !== 0 || !report.success) ok = false;
}

vitest("unit-api", ["unit", "server", "api-pglite", "api-postgres"]);

console.log("\nBuilding the app for the browser tests …");
if (run("npx", ["react-router", "build"]) !== 0) {
  console.error("Build failed: browser tests not run.");
  totals.failed += 1;
  ok = false;
} else {
  vitest("e2e", ["e2e"]);
}

const skipped = totals.skipped ? `, ${totals.skipped} skipped` : "";
console.log(`\n${totals.passed} passed, ${totals.failed} failed${skipped}`);
process.exit(ok ? 0 : 1);
