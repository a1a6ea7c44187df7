/**
 * `npm run simulator`: the local protocol servers (server/protocolServers/registry.ts) in a
 * process of their own — the simulation engine behind each vendor's protocol — for Toolbox to
 * connect to through "Your server" as to any real trading server. Prints each server's address,
 * manager credentials and the path of the CA certificate to trust, and serves a small control
 * API for faults on 127.0.0.1. Stops on Ctrl+C.
 *
 *   npm run simulator -- [--host 127.0.0.1] [--only mt5WebApi] [--accounts 300] [--trade-rate 3]
 *                        [--seed mt5WebApi=5005] [--port mt5WebApi=18443] [--control-port 18400]
 *                        [--dir data/simulator] [--plain-mt5]
 *
 * Toolbox refuses loopback and private addresses for trade servers unless allowed: start it with
 * TRADE_SERVER_ALLOWED_TARGETS=127.0.0.1 to reach these.
 */
import fs from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import { selfSignedCertificate } from "../server/protocolServers/certificates.ts";
import { PROTOCOL_SERVERS, type FaultRequest, type RunningProtocolServer } from "../server/protocolServers/registry.ts";

const { values } = parseArgs({
  options: {
    host: { type: "string", default: "127.0.0.1" },
    only: { type: "string", multiple: true },
    accounts: { type: "string", default: "300" },
    "trade-rate": { type: "string", default: "3" },
    seed: { type: "string", multiple: true },
    port: { type: "string", multiple: true },
    "control-port": { type: "string", default: "18400" },
    dir: { type: "string", default: path.join("data", "simulator") },
    /** MT5 as a real server is today: no Toolbox plugin, so the connector polls the vendor's commands. */
    "plain-mt5": { type: "boolean", default: false },
  },
});

/** `name=value` pairs (`--seed mt5WebApi=7`); a bare value applies to every server. */
function named(list: string[] | undefined): Map<string, number> & { all?: number } {
  const map = new Map<string, number>() as Map<string, number> & { all?: number };
  for (const item of list ?? []) {
    const [name, value] = item.includes("=") ? item.split("=", 2) : [undefined, item];
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) fail(`"${item}" is not a whole number`);
    if (name) map.set(name, n);
    else map.all = n;
  }
  return map;
}

function fail(message: string): never {
  console.error(`simulator: ${message}`);
  process.exit(2);
}

const wanted = values.only ?? PROTOCOL_SERVERS.map((s) => s.name);
for (const name of wanted)
  if (!PROTOCOL_SERVERS.some((s) => s.name === name)) fail(`unknown server "${name}" (known: ${PROTOCOL_SERVERS.map((s) => s.name).join(", ")})`);
const seeds = named(values.seed);
const ports = named(values.port);
const accounts = Number(values.accounts);
const tradeRate = Number(values["trade-rate"]);
if (!Number.isInteger(accounts) || accounts < 0 || accounts > 100_000) fail("--accounts is a whole number from 0 to 100000");
if (!Number.isFinite(tradeRate) || tradeRate < 0) fail("--trade-rate is a number of trading actions per second");

const host = values.host;
const dir = path.resolve(values.dir);
fs.mkdirSync(dir, { recursive: true });
const tls = await selfSignedCertificate(["localhost", "127.0.0.1", "::1", ...(["127.0.0.1", "localhost", "::1"].includes(host) ? [] : [host])]);
const caPath = path.join(dir, "ca.pem");
fs.writeFileSync(caPath, tls.ca);

const running: RunningProtocolServer[] = [];
for (const definition of PROTOCOL_SERVERS.filter((s) => wanted.includes(s.name))) {
  running.push(
    await definition.start({
      host,
      port: ports.get(definition.name) ?? ports.all ?? definition.defaultPort,
      seed: seeds.get(definition.name) ?? seeds.all ?? definition.defaultSeed,
      accounts,
      tradeRate,
      tls,
      plainMt5: values["plain-mt5"],
    }),
  );
}

// Faults on demand: POST http://127.0.0.1:<control-port>/<server>/faults {"drop":true} (see FaultRequest).
const control = createServer((req, res) => {
  const match = /^\/([A-Za-z0-9]+)\/faults$/.exec(req.url ?? "");
  const target = match ? running.find((s) => s.name === match[1]) : undefined;
  if (req.method !== "POST" || !target) {
    res.writeHead(404, { "content-type": "text/plain" }).end(`POST /<${running.map((s) => s.name).join("|")}>/faults with a JSON body\n`);
    return;
  }
  let body = "";
  req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
  req.on("end", () => {
    try {
      target.applyFaults(JSON.parse(body || "{}") as FaultRequest);
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}\n');
    } catch (error) {
      res.writeHead(400, { "content-type": "text/plain" }).end(`${(error as Error).message}\n`);
    }
  });
});
const controlPort = Number(values["control-port"]);
await new Promise<void>((resolve) => control.listen(controlPort, "127.0.0.1", resolve));

console.log("Toolbox protocol servers are running.\n");
for (const server of running) {
  console.log(`${server.name} (${server.platform})`);
  for (const [label, value] of server.details) console.log(`  ${label.padEnd(17)} ${value}`);
  console.log(`  ${"CA certificate".padEnd(17)} ${caPath}`);
  console.log("");
}
console.log(`Faults: curl -X POST http://127.0.0.1:${controlPort}/<server>/faults -d '{"drop":true}'   (restore: {"restore":true})`);
console.log("Start Toolbox with TRADE_SERVER_ALLOWED_TARGETS=127.0.0.1 to reach them. Ctrl+C stops.");

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  control.close();
  await Promise.all(running.map((s) => s.close()));
  process.exit(0);
}
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
