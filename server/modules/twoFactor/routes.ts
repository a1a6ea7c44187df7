import type { FastifyInstance, FastifyRequest } from "fastify";
import { refusal } from "../../../core/schemas/apiError.ts";
import { z } from "zod";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { ConflictError, InvalidRequestError } from "../../errors.ts";
import { findAccountById, type Account } from "../../idp/people.ts";
import {
  AlreadyEnrolled,
  checkCode,
  confirmEnrolment,
  MAX_FAILED_ATTEMPTS,
  removeTwoFactor,
  startEnrolment,
  twoFactorStatus,
  waitText,
} from "../../idp/twoFactor.ts";
import { secretCipherOf } from "../../secrets/context.ts";
import { reportLockout } from "../../idp/lockouts.ts";
import { createMailer } from "../../mail/mailer.ts";
import { recordSignInStep } from "../audit/signIns.ts";
import { ConfirmEnrolmentSchema, DisableSchema, EnrolmentSchema, RecoveryCodesSchema, TwoFactorStatusSchema } from "./schemas.ts";

/** Enrolments started per person: each draws a secret and a QR code. */
export const ENROLMENT_LIMIT = { max: 20, timeWindow: "1 hour" };

const tags = ["profile"];
const personal = { organization: "none" } as const;

/**
 * The signed-in person's own two-factor sign-in (TOTP) with the embedded provider
 * (docs/security.md "Two-factor sign-in"). With an external provider there is nothing to manage
 * here: GET says `available: false` and the changes answer 409.
 */
export async function twoFactorRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;
  const { embedded } = app.ctx.config.oidc;
  const deps = { db, cipher: secretCipherOf(app.ctx) };
  const log = app.log.child({ module: "twoFactor" });
  const mailer = createMailer(app.ctx.config.mail);
  app.addHook("onClose", async () => mailer?.close());

  /** The caller's account at the embedded provider. */
  const accountOf = async (request: FastifyRequest): Promise<Account> => {
    const account = embedded ? await findAccountById(db, request.auth.sub) : undefined;
    if (!account) {
      throw new ConflictError("Two-factor sign-in is set up at the identity provider you sign in with, not in Toolbox.");
    }
    return account;
  };

  api.get(
    "/profile/two-factor",
    {
      config: personal,
      schema: {
        tags,
        summary: "Whether the caller signs in with two-factor (TOTP), since when, and recovery codes left",
        response: { 200: TwoFactorStatusSchema },
      },
    },
    async (request) => {
      const account = embedded ? await findAccountById(db, request.auth.sub) : undefined;
      if (!account) return { available: false, enabled: false, enabledAt: null, recoveryCodesLeft: 0 };
      const status = await twoFactorStatus(db, account.id);
      return { available: true, ...status, enabledAt: status.enabledAt?.toISOString() ?? null };
    },
  );

  api.post(
    "/profile/two-factor/enrolment",
    {
      config: {
        ...personal,
        rateLimit: { ...ENROLMENT_LIMIT, hook: "preHandler", keyGenerator: (request: FastifyRequest) => `two-factor-enrolment|${request.auth.sub}` },
      },
      schema: {
        tags,
        summary: "Start turning on two-factor sign-in: a new secret, its otpauth URI and QR code",
        description:
          "Nothing changes at sign-in until a code from the new secret confirms it. Starting again replaces the unconfirmed secret. 409 when two-factor is already on.",
        response: { 200: EnrolmentSchema, 409: refusal("Two-factor sign-in is already on") },
      },
    },
    async (request) => {
      const account = await accountOf(request);
      try {
        const enrolment = await startEnrolment(deps, account);
        return { secret: enrolment.secret, uri: enrolment.uri, qrCode: `data:image/svg+xml;base64,${Buffer.from(enrolment.qrSvg).toString("base64")}` };
      } catch (err) {
        if (err instanceof AlreadyEnrolled) throw new ConflictError("Two-factor sign-in is already on. Turn it off first to set up another device.");
        throw err;
      }
    },
  );

  api.post(
    "/profile/two-factor/enrolment/confirm",
    {
      config: personal,
      schema: {
        tags,
        summary: "Confirm the enrolment with a current code: two-factor sign-in is on, and the answer holds 10 single-use recovery codes (shown once)",
        body: ConfirmEnrolmentSchema,
        response: { 200: RecoveryCodesSchema, 409: refusal("Two-factor sign-in is already on") },
      },
    },
    async (request) => {
      const account = await accountOf(request);
      const codes = await confirmEnrolment(deps, account.id, request.body.code);
      if (!codes) {
        const status = await twoFactorStatus(db, account.id);
        if (status.enabled) throw new ConflictError("Two-factor sign-in is already on.");
        throw new InvalidRequestError(
          "This code does not match. Check that your authenticator app shows the code for Toolbox and that your device's clock is right, or start again.",
        );
      }
      log.info({ sub: account.id }, "two-factor sign-in turned on");
      return { recoveryCodes: codes };
    },
  );

  api.delete(
    "/profile/two-factor",
    {
      config: personal,
      schema: {
        tags,
        summary: "Turn two-factor sign-in off; needs a current code (or a recovery code)",
        body: DisableSchema,
        response: {
          204: z.null().meta({ description: "Two-factor sign-in is off" }),
          409: refusal("Two-factor sign-in is not on"),
          429: refusal("Too many wrong codes in a row: wait the seconds in Retry-After"),
        },
      },
    },
    async (request, reply) => {
      const account = await accountOf(request);
      const result = await checkCode(deps, account.id, request.body.code);
      if (!result.ok) {
        // Never the code itself in the log.
        log.warn({ sub: account.id, reason: result.reason }, "two-factor code refused when turning it off");
        if (result.reason === "notEnrolled") throw new ConflictError("Two-factor sign-in is not on.");
        // The same count as at sign-in: audited, and a lockout begun here is mailed like one there.
        const sourceIp = request.ip ?? null;
        await recordSignInStep(db, log, { action: "session.secondFactorFailed", account, sourceIp, detail: { reason: result.reason, where: "turnOff" } });
        if (result.reason === "locked" && result.started) {
          await reportLockout(
            { db, mailer, log, publicUrl: app.ctx.config.publicUrl },
            { account, ...result.started, retryAfterSeconds: result.retryAfterSeconds, where: "turnOff", sourceIp },
          );
        }
        if (result.reason === "locked") {
          const message = `Too many wrong codes (${MAX_FAILED_ATTEMPTS} in a row). Wait ${waitText(result.retryAfterSeconds)}, then try again.`;
          return reply.status(429).header("Retry-After", String(result.retryAfterSeconds)).send({ statusCode: 429, error: "Too Many Requests", message });
        }
        throw new InvalidRequestError(
          "This code is not correct, or it was already used. Enter the current code from your authenticator app, or a recovery code.",
        );
      }
      await db.transaction((tx) => removeTwoFactor(tx, account.id));
      log.info({ sub: account.id }, "two-factor sign-in turned off");
      return reply.status(204).send(null);
    },
  );
}
