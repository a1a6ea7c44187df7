/**
 * One idea: the embedded provider's sign-in and sign-up pages (docs/security.md), and the steps
 * every sign-in shares (the interaction, the audit of a completed sign-in, finishing it).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import formbody from "@fastify/formbody";
import type Provider from "oidc-provider";
import type { Interaction } from "oidc-provider";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { createAccount, EmailTakenError, findAccountById, normalizeEmail, verifyCredentials } from "./people.ts";
import { fieldErrors, formValue, MIN_PASSWORD_LENGTH, SignInForm, SignUpForm } from "./forms.ts";
import { grantMissingConsent } from "./grants.ts";
import { hasPendingInvitation } from "../modules/members/repository.ts";
import { recordSignIn } from "../modules/audit/signIns.ts";
import { MAX_PASSWORD_LENGTH } from "./passwords.ts";
import { INTERACTION_PATH } from "./provider.ts";
import { idpPageCsp } from "./views/csp.ts";
import { errorPage, signInPage, signUpPage, twoFactorPage, type FormErrors } from "./views/pages.ts";
import type { SecretCipher } from "../secrets/cipher.ts";
import { enrolmentRequired, hasTwoFactor } from "./twoFactor.ts";
import { secondFactorRoutes } from "./secondFactor.ts";
import { emailVerification } from "./emailVerification.ts";
import type { IdentityMail } from "./mail.ts";
import { PASSWORD_PATH } from "./passwordReset.ts";
import { INVITATION_SIGN_IN_PARAM } from "../../core/schemas/members.ts";

/** Sign-in attempts per client address and email; sign-ups per client address. */
export const SIGN_IN_LIMIT = { max: 10, timeWindow: 60_000 };
export const SIGN_UP_LIMIT = { max: 10, timeWindow: 60_000 };
/** Across emails: one address trying many accounts (password spraying) is held up too. */
export const SIGN_IN_PER_ADDRESS_LIMIT = { max: 50, timeWindow: 60_000 };

/** How the person signed in (RFC 8176), as the provider puts it in the tokens' `amr`. */
export const AMR_PASSWORD = ["pwd"];

/**
 * Where an interaction remembers a password that was right while it waits for the second factor.
 * It lives in the provider's own interaction record (bound to its cookie, gone with it); the
 * provider ignores it, since it has no `login`.
 */
const PASSWORD_STEP = "toolboxPasswordVerified";

interface Options {
  provider: Provider;
  config: Config;
  db: Db;
  cipher: SecretCipher;
  mail: IdentityMail;
}

type UidRequest = FastifyRequest<{ Params: { uid: string } }>;

/**
 * The provider's interaction pages: sign-in and sign-up; the second factor is ./secondFactor.ts
 * and the e-mail confirmation ./emailVerification.ts. They only ever continue the interaction
 * named by the uid in the path (bound to the provider's interaction cookie); where the browser
 * goes next is the provider's stored `returnTo`, never anything from the form, so there is no
 * open redirect. Consent is never asked: Toolbox's web client is first-party.
 */
export async function interactionRoutes(app: FastifyInstance, opts: Options) {
  const { provider, config, db, cipher, mail } = opts;
  const publicOrigin = new URL(config.publicUrl).origin;
  const homeUrl = `${config.publicUrl}/`;
  const csp = idpPageCsp({ publicOrigin });

  await app.register(formbody, { bodyLimit: 16 * 1024 });

  const urls = (uid: string) => ({
    page: `${INTERACTION_PATH}/${encodeURIComponent(uid)}`,
    login: `${INTERACTION_PATH}/${encodeURIComponent(uid)}/login`,
    signUp: `${INTERACTION_PATH}/${encodeURIComponent(uid)}/signup`,
    twoFactor: `${INTERACTION_PATH}/${encodeURIComponent(uid)}/two-factor`,
    enrol: `${INTERACTION_PATH}/${encodeURIComponent(uid)}/two-factor/enrol`,
  });

  const sendPage = (reply: FastifyReply, status: number, page: string) =>
    reply.status(status).header("Content-Security-Policy", csp).header("Cache-Control", "no-store").type("text/html; charset=utf-8").send(page);

  const sendExpired = (reply: FastifyReply) =>
    sendPage(reply, 400, errorPage({ homeUrl, title: "Sign-in expired", message: "This sign-in page has expired. Go back to Toolbox and sign in again." }));

  /** The interaction the cookie points at, only if it is the one named in the path. */
  const loadInteraction = async (request: UidRequest, reply: FastifyReply): Promise<Interaction | undefined> => {
    try {
      const interaction = await provider.interactionDetails(request.raw, reply.raw);
      return interaction.uid === request.params.uid ? interaction : undefined;
    } catch {
      return undefined;
    }
  };

  const renderSignIn = (reply: FastifyReply, uid: string, status: number, email?: string, errors?: FormErrors<"email" | "password">) =>
    sendPage(
      reply,
      status,
      signInPage({
        homeUrl,
        action: urls(uid).login,
        signUpUrl: config.signUp === "off" ? undefined : urls(uid).signUp,
        // A reset link needs e-mail: none in production without SMTP_URL.
        forgotPasswordUrl: mail.channel === "none" ? undefined : `${PASSWORD_PATH}/forgot`,
        email,
        errors,
      }),
    );

  // SIGN_UP=off: no account can be created here (docs/administration.md).
  const sendSignUpOff = (reply: FastifyReply) =>
    sendPage(
      reply,
      403,
      errorPage({
        homeUrl,
        title: "Sign-up is off",
        message: "New accounts cannot be created here. Ask your Toolbox administrator for an invitation or an account.",
      }),
    );

  /** Whether the sign-in started from an invitation link (the app's `invitation=1`). */
  const signUpOf = (interaction: Interaction) => ({ uid: interaction.uid, invited: interaction.params[INVITATION_SIGN_IN_PARAM] === "1" });

  const renderSignUp = (
    reply: FastifyReply,
    interaction: { uid: string; invited?: boolean },
    status: number,
    values?: { name?: string; email?: string },
    errors?: FormErrors<"name" | "email" | "password" | "confirmPassword">,
  ) =>
    sendPage(
      reply,
      status,
      signUpPage({
        homeUrl,
        action: urls(interaction.uid).signUp,
        signInUrl: urls(interaction.uid).page,
        values,
        errors,
        minPasswordLength: MIN_PASSWORD_LENGTH,
        maxPasswordLength: MAX_PASSWORD_LENGTH,
        inviteOnly: config.signUp === "invite-only",
        invited: interaction.invited,
      }),
    );

  /**
   * A completed sign-in, in the audit log of each of the person's organizations: after the
   * password alone, or after the second factor (never on the password alone when there is one).
   */
  const auditSignedIn = async (request: FastifyRequest, accountId: string, secondFactor?: "totp" | "recovery" | "enrolled") => {
    const account = await findAccountById(db, accountId);
    if (!account) return;
    await recordSignIn(db, request.log, {
      email: account.email,
      account: { id: account.id, name: account.name },
      succeeded: true,
      sourceIp: request.ip ?? null,
      ...(secondFactor ? { detail: { secondFactor } } : {}),
    });
  };

  /** The account whose password this interaction accepted, waiting for its second factor. */
  const passwordVerifiedFor = (interaction: Interaction): string | undefined => {
    const step = interaction.result?.[PASSWORD_STEP] as { accountId?: unknown } | undefined;
    return typeof step?.accountId === "string" ? step.accountId : undefined;
  };

  /** Signed in: the provider resumes the authorization request (and issues the code). */
  const completeLogin = async (request: UidRequest, reply: FastifyReply, accountId: string, amr: string[]) => {
    const returnTo = await provider.interactionResult(request.raw, reply.raw, { login: { accountId, amr } }, { mergeWithLastSubmission: false });
    return reply.header("Cache-Control", "no-store").redirect(returnTo, 303);
  };

  const verification = emailVerification({
    db,
    mail,
    homeUrl,
    publicUrl: config.publicUrl,
    interactionPath: (uid) => urls(uid).page,
    loadInteraction,
    sendPage,
    sendExpired,
    completeLogin,
  });

  /** Every step passed; an invitation waiting for an unconfirmed address asks for it first (emailVerification.ts). */
  const finishLogin = async (request: UidRequest, reply: FastifyReply, accountId: string, amr: string[] = AMR_PASSWORD) => {
    const unconfirmed = await verification.needed(accountId);
    if (unconfirmed) return verification.start(request, reply, unconfirmed, amr);
    return completeLogin(request, reply, accountId, amr);
  };

  // Too many attempts, or a body we cannot read: answer with the page, not JSON.
  app.setErrorHandler(async (error: Error & { statusCode?: number }, request, reply) => {
    const uid = (request.params as { uid?: string } | undefined)?.uid;
    const status = error.statusCode ?? 500;
    if (status === 429 && uid) {
      const message = "Too many attempts. Please wait a minute, then try again.";
      if (request.url.endsWith("/two-factor"))
        return sendPage(reply, 429, twoFactorPage({ homeUrl, action: urls(uid).twoFactor, restartUrl: urls(uid).page, errors: { form: message } }));
      if (request.url.endsWith("/two-factor/enrol"))
        return sendPage(reply, 429, errorPage({ homeUrl, title: "Too many attempts", message: "Please wait a minute, then go back and try again." }));
      if (/\/verify-email(\/|$)/.test(request.url)) return sendPage(reply, 429, errorPage({ homeUrl, title: "Too many attempts", message }));
      if (request.url.endsWith("/signup")) {
        return renderSignUp(reply, { uid }, 429, { name: formValue(request.body, "name"), email: formValue(request.body, "email") }, { form: message });
      }
      return renderSignIn(reply, uid, 429, formValue(request.body, "email"), { form: message });
    }
    if (status >= 500) request.log.error({ err: error }, "sign-in page failed");
    return sendPage(
      reply,
      status >= 500 ? 500 : status,
      errorPage({
        homeUrl,
        title: "Something went wrong",
        message:
          status >= 500
            ? "The sign-in service had a problem. Please try again in a moment."
            : "This request could not be understood. Go back to Toolbox and sign in again.",
      }),
    );
  });

  app.get("/:uid", async (request: UidRequest, reply) => {
    const interaction = await loadInteraction(request, reply);
    if (!interaction) return sendExpired(reply);
    if (interaction.prompt.name === "consent") {
      const returnTo = await provider.interactionResult(request.raw, reply.raw, await grantMissingConsent(provider, interaction));
      return reply.header("Cache-Control", "no-store").redirect(returnTo, 303);
    }
    const hint = typeof interaction.params.login_hint === "string" ? interaction.params.login_hint.slice(0, 254) : undefined;
    return renderSignIn(reply, interaction.uid, 200, hint);
  });

  const perAddress = app.createRateLimit({ ...SIGN_IN_PER_ADDRESS_LIMIT, keyGenerator: (request: FastifyRequest) => `signin-address|${request.ip}` });
  app.post(
    "/:uid/login",
    {
      // Two limits, both after the body is parsed: per address and email (guessing one password),
      // and per address alone (trying one password on many accounts). The plugin runs one limiter
      // per request, so the address-wide one is checked by hand.
      preHandler: async (request: UidRequest, reply: FastifyReply) => {
        const verdict = await perAddress(request);
        if (!verdict.isAllowed && verdict.isExceeded) {
          reply.header("Retry-After", String(verdict.ttlInSeconds));
          throw Object.assign(new Error("Too many attempts"), { statusCode: 429 });
        }
      },
      config: {
        rateLimit: {
          ...SIGN_IN_LIMIT,
          hook: "preHandler",
          keyGenerator: (request: FastifyRequest) => `signin|${request.ip}|${normalizeEmail(formValue(request.body, "email"))}`,
        },
      },
    },
    async (request: UidRequest, reply) => {
      const interaction = await loadInteraction(request, reply);
      if (!interaction) return sendExpired(reply);
      const parsed = SignInForm.safeParse(request.body ?? {});
      if (!parsed.success) return renderSignIn(reply, interaction.uid, 400, formValue(request.body, "email"), fieldErrors(parsed.error));
      const account = await verifyCredentials(db, parsed.data.email, parsed.data.password);
      if (!account) {
        await recordSignIn(db, request.log, { email: parsed.data.email, sourceIp: request.ip ?? null, account: null, succeeded: false });
        return renderSignIn(reply, interaction.uid, 401, parsed.data.email, { form: "The email or password is not correct." });
      }
      const secondStep = (await hasTwoFactor(db, account.id)) ? "two-factor" : (await enrolmentRequired(db, account.id)) ? "enrol" : undefined;
      if (secondStep) {
        // The password was right; the sign-in finishes only with the second factor (or, after an
        // administrator's reset, with a new device enrolled). It is audited when it completes.
        interaction.result = { [PASSWORD_STEP]: { accountId: account.id } };
        await interaction.persist();
        return reply.header("Cache-Control", "no-store").redirect(secondStep === "enrol" ? urls(interaction.uid).enrol : urls(interaction.uid).twoFactor, 303);
      }
      await auditSignedIn(request, account.id);
      return finishLogin(request, reply, account.id);
    },
  );

  secondFactorRoutes(app, {
    provider,
    db,
    cipher,
    mail,
    config,
    homeUrl,
    urls,
    loadInteraction,
    sendPage,
    sendExpired,
    passwordVerifiedFor,
    auditSignedIn,
    finishLogin,
  });

  verification.routes(app);

  app.get("/:uid/signup", async (request: UidRequest, reply) => {
    const interaction = await loadInteraction(request, reply);
    if (!interaction) return sendExpired(reply);
    if (config.signUp === "off") return sendSignUpOff(reply);
    return renderSignUp(reply, signUpOf(interaction), 200);
  });

  app.post(
    "/:uid/signup",
    {
      config: {
        rateLimit: { ...SIGN_UP_LIMIT, hook: "preHandler", keyGenerator: (request: FastifyRequest) => `signup|${request.ip}` },
      },
    },
    async (request: UidRequest, reply) => {
      const interaction = await loadInteraction(request, reply);
      if (!interaction) return sendExpired(reply);
      if (config.signUp === "off") return sendSignUpOff(reply);
      const values = { name: formValue(request.body, "name"), email: formValue(request.body, "email") };
      const parsed = await SignUpForm.safeParseAsync(request.body ?? {});
      if (!parsed.success) return renderSignUp(reply, signUpOf(interaction), 400, values, fieldErrors(parsed.error));
      if (config.signUp === "invite-only" && !(await hasPendingInvitation(db, parsed.data.email))) {
        return renderSignUp(reply, signUpOf(interaction), 403, values, {
          email:
            "No invitation is waiting for this email address. Use the address your invitation was sent to, or ask the organization's administrator to invite you.",
        });
      }
      try {
        const account = await createAccount(db, parsed.data);
        return await finishLogin(request, reply, account.id);
      } catch (err) {
        if (!(err instanceof EmailTakenError)) throw err;
        return renderSignUp(reply, signUpOf(interaction), 409, values, {
          email: "An account with this email already exists. Sign in instead, or use another email.",
        });
      }
    },
  );
}
