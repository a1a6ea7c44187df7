/**
 * One idea: the sign-in's second step, after a right password (docs/security.md, "Two-factor
 * sign-in"): the code page (a TOTP or a recovery code, with the per-person lockout) and, after an
 * administrator's reset, enrolling a new device before the sign-in completes. The sign-in pages
 * that lead here are ./interactions.ts; the codes themselves ./twoFactor.ts.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type Provider from "oidc-provider";
import type { Interaction } from "oidc-provider";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { recordSignInStep } from "../modules/audit/signIns.ts";
import type { SecretCipher } from "../secrets/cipher.ts";
import { fieldErrors, TwoFactorForm } from "./forms.ts";
import { reportLockout } from "./lockouts.ts";
import type { IdentityMail } from "./mail.ts";
import { findAccountById } from "./people.ts";
import { checkCode, confirmEnrolment, enrolmentRequired, MAX_FAILED_ATTEMPTS, pendingEnrolment, waitText } from "./twoFactor.ts";
import { enrolmentPage, recoveryCodesPage } from "./views/enrolment.ts";
import { twoFactorPage, type FormErrors } from "./views/pages.ts";

/** Second-step codes per client address (on top of the per-person lockout in twoFactor.ts). */
export const TWO_FACTOR_PER_ADDRESS_LIMIT = { max: 30, timeWindow: 60_000 };
/** How the person signed in (RFC 8176): password and a one-time code. */
export const AMR_PASSWORD_AND_OTP = ["pwd", "otp"];

type UidRequest = FastifyRequest<{ Params: { uid: string } }>;

/** What the sign-in pages share with the second step (./interactions.ts). */
export interface SecondFactorDeps {
  provider: Provider;
  db: Db;
  cipher: SecretCipher;
  mail: IdentityMail;
  config: Config;
  homeUrl: string;
  urls: (uid: string) => { page: string; twoFactor: string; enrol: string };
  loadInteraction: (request: UidRequest, reply: FastifyReply) => Promise<Interaction | undefined>;
  sendPage: (reply: FastifyReply, status: number, page: string) => FastifyReply;
  sendExpired: (reply: FastifyReply) => FastifyReply;
  passwordVerifiedFor: (interaction: Interaction) => string | undefined;
  auditSignedIn: (request: FastifyRequest, accountId: string, secondFactor?: "totp" | "recovery" | "enrolled") => Promise<void>;
  finishLogin: (request: UidRequest, reply: FastifyReply, accountId: string, amr?: string[]) => Promise<unknown>;
}

export function secondFactorRoutes(app: FastifyInstance, kit: SecondFactorDeps): void {
  const { provider, db, cipher, mail, config, homeUrl, urls, loadInteraction, sendPage, sendExpired, passwordVerifiedFor, auditSignedIn, finishLogin } = kit;

  const renderTwoFactor = (reply: FastifyReply, uid: string, status: number, errors?: FormErrors<"code">) =>
    sendPage(reply, status, twoFactorPage({ homeUrl, action: urls(uid).twoFactor, restartUrl: urls(uid).page, errors }));

  const renderEnrolment = async (reply: FastifyReply, uid: string, status: number, accountId: string, errors?: FormErrors<"code">) => {
    const account = await findAccountById(db, accountId);
    if (!account) return sendExpired(reply);
    const enrolment = await pendingEnrolment({ db, cipher }, account);
    const qrCode = `data:image/svg+xml;base64,${Buffer.from(enrolment.qrSvg).toString("base64")}`;
    return sendPage(reply, status, enrolmentPage({ homeUrl, action: urls(uid).enrol, restartUrl: urls(uid).page, secret: enrolment.secret, qrCode, errors }));
  };

  app.get("/:uid/two-factor", async (request: UidRequest, reply) => {
    const interaction = await loadInteraction(request, reply);
    if (!interaction) return sendExpired(reply);
    const accountId = passwordVerifiedFor(interaction);
    if (!accountId) return reply.header("Cache-Control", "no-store").redirect(urls(interaction.uid).page, 303);
    if (await enrolmentRequired(db, accountId)) return reply.header("Cache-Control", "no-store").redirect(urls(interaction.uid).enrol, 303);
    return renderTwoFactor(reply, interaction.uid, 200);
  });

  app.post(
    "/:uid/two-factor",
    { config: { rateLimit: { ...TWO_FACTOR_PER_ADDRESS_LIMIT, hook: "preHandler", keyGenerator: (request: FastifyRequest) => `two-factor|${request.ip}` } } },
    async (request: UidRequest, reply) => {
      const interaction = await loadInteraction(request, reply);
      if (!interaction) return sendExpired(reply);
      const accountId = passwordVerifiedFor(interaction);
      if (!accountId) return reply.header("Cache-Control", "no-store").redirect(urls(interaction.uid).page, 303);
      const parsed = TwoFactorForm.safeParse(request.body ?? {});
      if (!parsed.success) return renderTwoFactor(reply, interaction.uid, 400, fieldErrors(parsed.error));
      const result = await checkCode({ db, cipher }, accountId, parsed.data.code);
      if (result.ok) {
        request.log.info({ accountId, method: result.method }, "two-factor sign-in");
        await auditSignedIn(request, accountId, result.method);
        return finishLogin(request, reply, accountId, AMR_PASSWORD_AND_OTP);
      }
      // Never the code itself in the log.
      request.log.warn({ accountId, reason: result.reason }, "two-factor code refused at sign-in");
      if (result.reason !== "notEnrolled") {
        const account = await findAccountById(db, accountId);
        if (account) {
          const sourceIp = request.ip ?? null;
          await recordSignInStep(db, request.log, { action: "session.secondFactorFailed", account, sourceIp, detail: { reason: result.reason } });
          if (result.reason === "locked" && result.started) {
            await reportLockout(
              { db, mailer: mail.channel === "none" ? undefined : mail, log: request.log, publicUrl: config.publicUrl },
              { account, ...result.started, retryAfterSeconds: result.retryAfterSeconds, where: "signIn", sourceIp },
            );
          }
        }
      }
      switch (result.reason) {
        case "locked":
          reply.header("Retry-After", String(result.retryAfterSeconds));
          return renderTwoFactor(reply, interaction.uid, 429, {
            form: `Too many wrong codes (${MAX_FAILED_ATTEMPTS} in a row). Wait ${waitText(result.retryAfterSeconds)}, then try again.`,
          });
        case "notEnrolled":
          // Reset by an administrator meanwhile: a new device first. Turned off by the person: the
          // password alone signs in.
          if (await enrolmentRequired(db, accountId)) return reply.header("Cache-Control", "no-store").redirect(urls(interaction.uid).enrol, 303);
          await auditSignedIn(request, accountId);
          return finishLogin(request, reply, accountId);
        default:
          return renderTwoFactor(reply, interaction.uid, 401, {
            code: "This code is not correct, or it was already used. Enter the current code from your authenticator app, or a recovery code.",
          });
      }
    },
  );

  // After an administrator's reset: a new device is enrolled before the sign-in completes, so the
  // password alone never signs in a person who had two-factor (docs/security.md).
  app.get("/:uid/two-factor/enrol", async (request: UidRequest, reply) => {
    const interaction = await loadInteraction(request, reply);
    if (!interaction) return sendExpired(reply);
    const accountId = passwordVerifiedFor(interaction);
    if (!accountId) return reply.header("Cache-Control", "no-store").redirect(urls(interaction.uid).page, 303);
    if (!(await enrolmentRequired(db, accountId))) return reply.header("Cache-Control", "no-store").redirect(urls(interaction.uid).twoFactor, 303);
    return renderEnrolment(reply, interaction.uid, 200, accountId);
  });

  app.post(
    "/:uid/two-factor/enrol",
    { config: { rateLimit: { ...TWO_FACTOR_PER_ADDRESS_LIMIT, hook: "preHandler", keyGenerator: (request: FastifyRequest) => `two-factor|${request.ip}` } } },
    async (request: UidRequest, reply) => {
      const interaction = await loadInteraction(request, reply);
      if (!interaction) return sendExpired(reply);
      const accountId = passwordVerifiedFor(interaction);
      if (!accountId) return reply.header("Cache-Control", "no-store").redirect(urls(interaction.uid).page, 303);
      if (!(await enrolmentRequired(db, accountId))) return reply.header("Cache-Control", "no-store").redirect(urls(interaction.uid).twoFactor, 303);
      const parsed = TwoFactorForm.safeParse(request.body ?? {});
      if (!parsed.success) return renderEnrolment(reply, interaction.uid, 400, accountId, fieldErrors(parsed.error));
      const codes = await confirmEnrolment({ db, cipher }, accountId, parsed.data.code);
      if (!codes) {
        return renderEnrolment(reply, interaction.uid, 401, accountId, {
          code: "This code does not match. Check that your authenticator app shows the code for Toolbox and that your device's clock is right.",
        });
      }
      request.log.info({ accountId }, "two-factor enrolled again at sign-in");
      await auditSignedIn(request, accountId, "enrolled");
      const continueUrl = await provider.interactionResult(
        request.raw,
        reply.raw,
        { login: { accountId, amr: AMR_PASSWORD_AND_OTP } },
        { mergeWithLastSubmission: false },
      );
      return sendPage(reply, 200, recoveryCodesPage({ homeUrl, continueUrl, codes }));
    },
  );
}
