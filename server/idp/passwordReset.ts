/**
 * "Forgot your password?" at the embedded provider (docs/security.md "Password change and reset"):
 * a link is mailed to the account's address; it works once, for an hour, and lets the person
 * choose a new password under the sign-up rules. Every session of the person then ends. The
 * first page answers the same whether an account uses the address or not, and as fast (the
 * e-mail leaves after the answer), so it does not tell who has an account.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import formbody from "@fastify/formbody";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { consumeResetToken, dropResetTokens, findResetToken, newResetToken, RESET_LINK_TTL_SECONDS } from "./emailChallenges.ts";
import { fieldErrors, ForgotPasswordForm, formValue, MIN_PASSWORD_LENGTH, NewPasswordForm } from "./forms.ts";
import { DEV_OUTBOX_PATH, type IdentityMail } from "./mail.ts";
import { OIDC_PREFIX } from "./mount.ts";
import { MAX_PASSWORD_LENGTH } from "./passwords.ts";
import { findAccountByEmail, findAccountById, markEmailVerified, setPassword } from "./people.ts";
import { endAllSessions, recordPersonEvent } from "./sessions.ts";
import { idpPageCsp } from "./views/csp.ts";
import { devOutboxPage, forgotPasswordPage, passwordResetDonePage, resetPasswordPage, resetSentPage } from "./views/accountPages.ts";
import { errorPage, type FormErrors } from "./views/pages.ts";

export const PASSWORD_PATH = `${OIDC_PREFIX}/password`;
/** Reset e-mails asked for per client address, and per address asked for (each is an e-mail to someone). */
export const RESET_REQUEST_LIMIT = { max: 5, timeWindow: 10 * 60_000 };
export const RESET_PER_EMAIL_LIMIT = { max: 3, timeWindow: 10 * 60_000 };
/** New passwords posted per client address (a reset token is 256 bits: this only bounds hashing). */
export const RESET_SUBMIT_LIMIT = { max: 10, timeWindow: 60_000 };

interface Options {
  config: Config;
  db: Db;
  mail: IdentityMail;
  revocations?: { revoke(grantId: string): Promise<void> };
}

export function resetLink(publicUrl: string, token: string): string {
  return `${publicUrl}${PASSWORD_PATH}/reset?token=${token}`;
}

export async function passwordResetRoutes(app: FastifyInstance, opts: Options) {
  const { config, db, mail } = opts;
  const homeUrl = `${config.publicUrl}/`;
  const csp = idpPageCsp({ publicOrigin: new URL(config.publicUrl).origin });
  const devOutboxUrl = mail.channel === "devOutbox" ? DEV_OUTBOX_PATH : undefined;

  await app.register(formbody, { bodyLimit: 16 * 1024 });

  const sendPage = (reply: FastifyReply, status: number, page: string) =>
    reply.status(status).header("Content-Security-Policy", csp).header("Cache-Control", "no-store").type("text/html; charset=utf-8").send(page);

  const noMail = (reply: FastifyReply) =>
    sendPage(
      reply,
      503,
      errorPage({
        homeUrl,
        title: "Password reset is not available",
        message: "This Toolbox server sends no e-mail, so it cannot send you a reset link. Ask your Toolbox administrator.",
      }),
    );

  const linkGone = (reply: FastifyReply) =>
    sendPage(
      reply,
      400,
      errorPage({
        homeUrl,
        title: "This link no longer works",
        message: "A password-reset link works once, for an hour, and only the latest one sent. Ask for a new one from the sign-in page.",
      }),
    );

  const renderReset = (reply: FastifyReply, status: number, token: string, email: string, errors?: FormErrors<"password" | "confirmPassword">) =>
    sendPage(
      reply,
      status,
      resetPasswordPage({
        homeUrl,
        action: `${PASSWORD_PATH}/reset`,
        token,
        email,
        minPasswordLength: MIN_PASSWORD_LENGTH,
        maxPasswordLength: MAX_PASSWORD_LENGTH,
        errors,
      }),
    );

  app.setErrorHandler(async (error: Error & { statusCode?: number }, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, "password reset page failed");
    const message =
      status === 429
        ? "Too many attempts. Please wait a few minutes, then try again."
        : status >= 500
          ? "The sign-in service had a problem. Please try again in a moment."
          : "This request could not be understood. Go back to Toolbox and try again.";
    return sendPage(reply, status >= 500 ? 500 : status, errorPage({ homeUrl, title: status === 429 ? "Too many attempts" : "Something went wrong", message }));
  });

  app.get(`${PASSWORD_PATH}/forgot`, async (_request, reply) =>
    mail.channel === "none" ? noMail(reply) : sendPage(reply, 200, forgotPasswordPage({ homeUrl, action: `${PASSWORD_PATH}/forgot` })),
  );

  const perEmail = app.createRateLimit({
    ...RESET_PER_EMAIL_LIMIT,
    keyGenerator: (request: FastifyRequest) => `reset-email|${formValue(request.body, "email").trim().toLowerCase()}`,
  });
  app.post(
    `${PASSWORD_PATH}/forgot`,
    {
      preHandler: async (request: FastifyRequest, reply: FastifyReply) => {
        const verdict = await perEmail(request);
        if (!verdict.isAllowed && verdict.isExceeded) {
          reply.header("Retry-After", String(verdict.ttlInSeconds));
          throw Object.assign(new Error("Too many attempts"), { statusCode: 429 });
        }
      },
      config: { rateLimit: { ...RESET_REQUEST_LIMIT, hook: "preHandler", keyGenerator: (request: FastifyRequest) => `reset-request|${request.ip}` } },
    },
    async (request, reply) => {
      if (mail.channel === "none") return noMail(reply);
      const parsed = ForgotPasswordForm.safeParse(request.body ?? {});
      if (!parsed.success) {
        return sendPage(
          reply,
          400,
          forgotPasswordPage({ homeUrl, action: `${PASSWORD_PATH}/forgot`, email: formValue(request.body, "email"), errors: fieldErrors(parsed.error) }),
        );
      }
      const { email } = parsed.data;
      const log = request.log;
      // After the answer: how long the mail server takes must not tell whether the address has an account.
      setImmediate(() => {
        void (async () => {
          const account = await findAccountByEmail(db, email);
          if (!account) return log.info("password reset asked for an e-mail no account has");
          const token = await newResetToken(db, account);
          await mail.send({
            to: account.email,
            subject: "Reset your Toolbox password",
            text: [
              "Someone (we hope you) asked to reset the password of your Toolbox account. Open this link to choose a new one:",
              resetLink(config.publicUrl, token),
              "",
              `The link works once, for ${RESET_LINK_TTL_SECONDS / 60} minutes. Every session signed in with the old password will end.`,
              "If you did not ask for this, ignore this message: your password stays as it is.",
            ].join("\n"),
          });
          log.info({ accountId: account.id }, "password reset link sent");
        })().catch((err: unknown) =>
          log.warn({ err: { message: (err as Error).message, code: (err as { code?: string }).code } }, "password reset link not sent"),
        );
      });
      return sendPage(reply, 200, resetSentPage({ homeUrl, email, validMinutes: RESET_LINK_TTL_SECONDS / 60, devOutboxUrl }));
    },
  );

  app.get(`${PASSWORD_PATH}/reset`, async (request: FastifyRequest<{ Querystring: { token?: unknown } }>, reply) => {
    const token = typeof request.query.token === "string" ? request.query.token : "";
    const found = await findResetToken(db, token);
    if (!found) return linkGone(reply);
    return renderReset(reply, 200, token, found.email);
  });

  app.post(
    `${PASSWORD_PATH}/reset`,
    { config: { rateLimit: { ...RESET_SUBMIT_LIMIT, hook: "preHandler", keyGenerator: (request: FastifyRequest) => `reset-submit|${request.ip}` } } },
    async (request, reply) => {
      const token = formValue(request.body, "token");
      const found = await findResetToken(db, token);
      if (!found) return linkGone(reply);
      const body = (request.body ?? {}) as Record<string, unknown>;
      const parsed = await NewPasswordForm.safeParseAsync({ email: found.email, password: body.password, confirmPassword: body.confirmPassword });
      if (!parsed.success) return renderReset(reply, 400, token, found.email, fieldErrors(parsed.error));
      const account = await findAccountById(db, found.accountId);
      if (!account) return linkGone(reply);
      const changed = await db.transaction(async (tx) => {
        // Taken once: of two posts of the same link, one changes the password.
        const used = await consumeResetToken(tx, token);
        if (!used) return false;
        await setPassword(tx, used.accountId, parsed.data.password);
        await dropResetTokens(tx, used.accountId);
        // The link reached them at this address: it is theirs.
        await markEmailVerified(tx, used.accountId, used.email);
        await recordPersonEvent(tx, account, "person.passwordReset", request.ip ?? null);
        return true;
      });
      if (!changed) return linkGone(reply);
      const ended = await endAllSessions(db, account.id, opts.revocations);
      request.log.info({ accountId: account.id, grantsEnded: ended }, "password reset; every session ended");
      return sendPage(reply, 200, passwordResetDonePage({ homeUrl }));
    },
  );

  if (mail.devOutbox) {
    const outbox = mail.devOutbox;
    app.get(DEV_OUTBOX_PATH, async (_request, reply) => sendPage(reply, 200, devOutboxPage({ homeUrl, messages: outbox })));
  }
}
