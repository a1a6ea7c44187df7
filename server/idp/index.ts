import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.ts";
import { deleteExpiredRecords } from "./adapter.ts";
import { interactionRoutes } from "./interactions.ts";
import { loadCookieKeys, loadSigningKeys } from "./keys.ts";
import { mountProvider } from "./mount.ts";
import { secretCipherOf } from "../secrets/context.ts";
import { burnPasswordCheck } from "./passwords.ts";
import { createIdentityMail } from "./mail.ts";
import { passwordResetRoutes } from "./passwordReset.ts";
import { createProvider, INTERACTION_PATH } from "./provider.ts";

const CLEANUP_INTERVAL_MS = 60 * 60 * 1000;

/**
 * The embedded OpenID Connect provider under /oidc: oidc-provider with keys and storage in the
 * database, and Toolbox's own sign-in and sign-up pages under /oidc/interaction.
 */
export async function registerIdentityProvider(app: FastifyInstance, ctx: AppContext) {
  const { config, database } = ctx;
  const db = database.db;
  const cipher = secretCipherOf(ctx, (message) => app.log.warn(message));
  const [signing, cookieKeys] = await Promise.all([loadSigningKeys(db, cipher), loadCookieKeys(db, cipher)]);
  const provider = createProvider({ config, db, jwks: signing.privateJwks, cookieKeys, log: app.log, revocations: app.access.revocations });

  if (config.publicUrl.startsWith("https://") && !config.trustProxy) {
    app.log.warn(
      "PUBLIC_URL is https but TRUST_PROXY is false: the identity provider cannot tell the request came over TLS and will refuse to set its secure cookies. Set TRUST_PROXY=true behind a TLS proxy.",
    );
  }

  // Confirmation codes and reset links (mail.ts): SMTP, the development outbox, or nowhere.
  const mail = createIdentityMail(config, app.log.child({ module: "idp-mail" }));
  app.addHook("onClose", async () => mail.close());
  if (mail.channel === "none") {
    app.log.warn(
      "SMTP_URL is not set: the identity provider cannot e-mail confirmation codes or password-reset links, so nobody can confirm an e-mail address (needed to accept an invitation) or reset a forgotten password. Set SMTP_URL (docs/configuration.md).",
    );
  }

  // Prepare the stand-in hash now, so even the first unknown email costs exactly one hash.
  burnPasswordCheck("").catch(() => {});

  await app.register(interactionRoutes, { prefix: INTERACTION_PATH, provider, config, db, cipher, mail });
  await app.register(passwordResetRoutes, { config, db, mail, revocations: app.access.revocations });
  await mountProvider(app, { provider, publicUrl: config.publicUrl });

  // Expired sessions, codes and tokens are invisible already; this only keeps the table small.
  const cleanup = setInterval(() => {
    deleteExpiredRecords(db).catch((err: unknown) => app.log.warn({ err }, "could not delete expired identity records"));
  }, CLEANUP_INTERVAL_MS);
  cleanup.unref();
  app.addHook("onClose", async () => clearInterval(cleanup));
}
