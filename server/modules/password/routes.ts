import type { FastifyInstance, FastifyRequest } from "fastify";
import { refusal } from "../../../core/schemas/apiError.ts";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ConflictError, InvalidRequestError, RefusedError } from "../../errors.ts";
import { dropResetTokens } from "../../idp/emailChallenges.ts";
import { NewPasswordForm } from "../../idp/forms.ts";
import { MAX_PASSWORD_LENGTH } from "../../idp/passwords.ts";
import { checkPassword, findAccountById, setPassword } from "../../idp/people.ts";
import { endAllSessions, recordPersonEvent } from "../../idp/sessions.ts";

/** Tries per person: a stolen session must not become a way to guess the password. */
export const PASSWORD_CHANGE_LIMIT = { max: 10, timeWindow: "15 minutes" };

const ChangePasswordSchema = z.object({
  currentPassword: z.string({ error: "Enter your current password." }).min(1, { error: "Enter your current password." }).max(MAX_PASSWORD_LENGTH),
  newPassword: z.string({ error: "Enter a new password." }).max(MAX_PASSWORD_LENGTH, { error: `Use at most ${MAX_PASSWORD_LENGTH} characters.` }),
});

/**
 * The signed-in person changes their own password at the embedded provider (docs/security.md
 * "Password change and reset"): the current one, and a new one under the sign-up rules. Every
 * session of the person then ends, this one too: the app signs in again.
 */
export async function passwordRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;
  const { embedded } = app.ctx.config.oidc;

  api.post(
    "/profile/password",
    {
      config: {
        organization: "none",
        callers: "people",
        rateLimit: { ...PASSWORD_CHANGE_LIMIT, hook: "preHandler", keyGenerator: (request: FastifyRequest) => `password-change|${request.auth.sub}` },
      },
      schema: {
        tags: ["profile"],
        summary: "Change the caller's password; every session of theirs ends, this one too (sign in again)",
        description:
          "The new password follows the sign-up rules: at least 10 characters, not one of the most common passwords, not the e-mail address. 422 when the current password is wrong; 409 with an external identity provider.",
        body: ChangePasswordSchema,
        response: {
          204: z.null().meta({ description: "Changed" }),
          409: refusal("The password is kept by an external identity provider: change it there"),
          422: refusal("The current password is not correct"),
        },
      },
    },
    async (request, reply) => {
      const account = embedded ? await findAccountById(db, request.auth.sub) : undefined;
      if (!account) throw new ConflictError("Your password is kept by the identity provider you sign in with, not by Toolbox: change it there.");
      const { currentPassword, newPassword } = request.body;
      if (!(await checkPassword(db, account.id, currentPassword))) {
        request.log.warn({ accountId: account.id }, "password change refused: wrong current password");
        throw new RefusedError("Your current password is not correct.");
      }
      const parsed = await NewPasswordForm.safeParseAsync({ email: account.email, password: newPassword, confirmPassword: newPassword });
      if (!parsed.success) throw new InvalidRequestError(`The new password is refused: ${parsed.error.issues[0]?.message ?? "it breaks a rule."}`);
      await db.transaction(async (tx) => {
        await setPassword(tx, account.id, newPassword);
        // A reset link sent before the change would otherwise still set a password.
        await dropResetTokens(tx, account.id);
        await recordPersonEvent(tx, account, "person.passwordChanged", request.ip ?? null);
      });
      const ended = await endAllSessions(db, account.id, app.access.revocations);
      request.log.info({ accountId: account.id, grantsEnded: ended }, "password changed; every session ended");
      return reply.status(204).send(null);
    },
  );
}
