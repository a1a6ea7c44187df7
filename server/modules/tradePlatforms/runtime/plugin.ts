/**
 * Decorates `app.platforms` (the PlatformRuntime) and `app.secrets` (the cipher of secrets at
 * rest). The runtime starts once the app is ready — connecting every enabled platform without
 * waiting for any — and disconnects everything when the app closes.
 */
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { tradeServerTargetPolicy } from "../../../connectors/target.ts";
import { createSecretCipher, type SecretCipher } from "../../../secrets/cipher.ts";
import { loadSecretsKey } from "../../../secrets/key.ts";
import { PlatformRuntime } from "./runtime.ts";
import type { PlatformRuntimeOptions } from "./types.ts";

export interface PlatformsPluginOptions {
  runtime?: PlatformRuntimeOptions;
}

export const platformsPlugin = fp<PlatformsPluginOptions>(
  async function platforms(app: FastifyInstance, opts) {
    const { config, database } = app.ctx;
    const log = app.log.child({ module: "platforms" });
    const cipher = createSecretCipher(() =>
      loadSecretsKey({
        secretsKey: config.secretsKey,
        dataDir: config.dataDir,
        usesDatabaseServer: database.kind === "postgres",
        warn: (message) => log.warn(message),
      }),
    );
    const runtime = new PlatformRuntime(database.db, cipher, log, app.bus, {
      tradeServerTargets: tradeServerTargetPolicy(config.tradeServers.allowedTargets),
      node: config.node,
      ...opts.runtime,
    });
    app.decorate("secrets", cipher);
    app.decorate("platforms", runtime);
    app.addHook("onReady", () => runtime.start());
    app.addHook("onClose", () => runtime.stop());
  },
  { name: "toolbox-platforms", fastify: "5.x", dependencies: ["toolbox-event-bus"] },
);

declare module "fastify" {
  interface FastifyInstance {
    platforms: PlatformRuntime;
    secrets: SecretCipher;
  }
}
