import type { AppContext } from "../context.ts";
import { createSecretCipher, type SecretCipher } from "./cipher.ts";
import { loadSecretsKey } from "./key.ts";

const ciphers = new WeakMap<AppContext, SecretCipher>();

/**
 * The cipher of secrets at rest for one running Toolbox (its config and database): made once, its
 * keys read on first use. `warn` hears the "set SECRETS_KEY on several nodes" advice.
 */
export function secretCipherOf(ctx: AppContext, warn: (message: string) => void = () => {}): SecretCipher {
  let cipher = ciphers.get(ctx);
  if (!cipher) {
    const { config, database } = ctx;
    cipher = createSecretCipher(() =>
      loadSecretsKey({ secretsKey: config.secretsKey, dataDir: config.dataDir, usesDatabaseServer: database.kind === "postgres", warn }),
    );
    ciphers.set(ctx, cipher);
  }
  return cipher;
}
