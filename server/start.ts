import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { loadConfig } from "./config.ts";
import { startToolbox } from "./main.ts";

// `npm start` on a fresh clone: build first when there is no build yet.
const dev = process.env.NODE_ENV === "development";
if (!dev && !fs.existsSync("build/server/index.js")) {
  console.log("No build found: building Toolbox first (npm run build) …");
  const r = spawnSync("npm", ["run", "build"], { stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

let config;
try {
  config = loadConfig();
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}

const running = await startToolbox(config, { dev });
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
