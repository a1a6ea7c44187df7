/**
 * Toolbox in a child process (tests/helpers/toolboxMain.ts), for tests that must end it the way a
 * crash does (SIGKILL) and start it again on the same database. The child is the node process
 * itself (no npm wrapper in between), so a signal reaches Toolbox and nothing else.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";

export interface ToolboxProcess {
  readonly pid: number;
  readonly url: string;
  /** Ends the process at once, as a crash would: no shutdown code runs. Resolves when it is gone. */
  kill(): Promise<void>;
  /** What it wrote to stdout and stderr so far. */
  output(): string;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

const entry = new URL("./toolboxMain.ts", import.meta.url).pathname;
const started = new Set<ToolboxProcess>();

/** Kills every Toolbox this process started and that still runs (afterAll, whatever failed). */
export async function killStartedToolboxes(): Promise<void> {
  await Promise.all([...started].map((p) => p.kill()));
}

/** Starts Toolbox on 127.0.0.1:`port` with `env` (on top of this process's) and waits until /api/health answers 200. */
export async function startToolboxProcess(opts: { port: number; env: Record<string, string>; logFile: string; timeoutMs?: number }): Promise<ToolboxProcess> {
  const url = `http://127.0.0.1:${opts.port}`;
  const out = fs.openSync(opts.logFile, "a");
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, ["--import", "tsx", entry], {
      env: { ...process.env, NODE_ENV: "production", HOST: "127.0.0.1", PORT: String(opts.port), PUBLIC_URL: url, LOG_LEVEL: "warn", ...opts.env },
      stdio: ["ignore", out, out],
    });
  } finally {
    fs.closeSync(out);
  }
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const handle: ToolboxProcess = {
    pid: child.pid!,
    url,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
      started.delete(handle);
    },
    output: () => (fs.existsSync(opts.logFile) ? fs.readFileSync(opts.logFile, "utf8") : ""),
  };
  started.add(handle);
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`Toolbox exited early (${child.exitCode ?? child.signalCode}):\n${handle.output().slice(-3000)}`);
    const healthy = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (healthy) return handle;
    if (Date.now() > deadline) {
      await handle.kill();
      throw new Error(`Toolbox did not become healthy at ${url}:\n${handle.output().slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
