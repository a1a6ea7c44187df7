/**
 * Confirming a person's e-mail address during a sign-in at the embedded provider (docs/security.md
 * "E-mail verification"). When an invitation waits for the address of someone who has not
 * confirmed it, the sign-in (or sign-up) does not finish at once: a 6-digit code is mailed and
 * the person types it on `/oidc/interaction/{uid}/verify-email`, or chooses "Not now" and goes on
 * unconfirmed (they then cannot accept the invitation). Plain sign-up with an organization of
 * one's own needs no confirmation: nothing is granted through the address there.
 *
 * Like the second factor, the step is remembered in the provider's own interaction record (bound
 * to its cookie); the sign-in finishes only from here, with the `amr` the earlier steps earned.
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Interaction } from "oidc-provider";
import type { Db } from "../db/client.ts";
import { hasPendingInvitation } from "../modules/members/repository.ts";
import { confirmEmailCode, newEmailCode, EMAIL_CODE_MAX_ATTEMPTS, EMAIL_CODE_TTL_SECONDS } from "./emailChallenges.ts";
import { EmailCodeForm, fieldErrors } from "./forms.ts";
import { DEV_OUTBOX_PATH, type IdentityMail } from "./mail.ts";
import { findAccountById, type Account } from "./people.ts";
import { emailCodePage } from "./views/accountPages.ts";
import type { FormErrors } from "./views/pages.ts";

/** Codes sent again per client address (each is an e-mail to someone). */
export const EMAIL_CODE_RESEND_LIMIT = { max: 5, timeWindow: 10 * 60_000 };
/** Codes typed per client address (on top of EMAIL_CODE_MAX_ATTEMPTS per code). */
export const EMAIL_CODE_CHECK_LIMIT = { max: 30, timeWindow: 60_000 };

/** Where the interaction remembers who is confirming their address, and how they signed in. */
const EMAIL_STEP = "toolboxEmailVerification";

type UidRequest = FastifyRequest<{ Params: { uid: string } }>;

export interface EmailVerificationDeps {
  db: Db;
  mail: IdentityMail;
  homeUrl: string;
  publicUrl: string;
  interactionPath: (uid: string) => string;
  loadInteraction(request: UidRequest, reply: FastifyReply): Promise<Interaction | undefined>;
  sendPage(reply: FastifyReply, status: number, page: string): FastifyReply;
  sendExpired(reply: FastifyReply): FastifyReply;
  /** Finishes the sign-in for good (the provider issues the code). */
  completeLogin(request: UidRequest, reply: FastifyReply, accountId: string, amr: string[]): Promise<FastifyReply>;
}

function emailMessage(publicUrl: string, code: string) {
  return {
    subject: `${code} is your Toolbox confirmation code`,
    text: [
      "Enter this code on the Toolbox page that asked for it, to confirm that this e-mail address is yours:",
      "",
      code,
      "",
      `It works for ${EMAIL_CODE_TTL_SECONDS / 60} minutes.`,
      "If you did not sign in to Toolbox just now, ignore this message: nothing happens without the code.",
      "",
      publicUrl,
    ].join("\n"),
  };
}

export function emailVerification(deps: EmailVerificationDeps) {
  const { db, mail } = deps;
  const urls = (uid: string) => {
    const base = `${deps.interactionPath(uid)}/verify-email`;
    return { page: base, resend: `${base}/resend`, skip: `${base}/skip` };
  };

  const stepOf = (interaction: Interaction): { accountId: string; amr: string[] } | undefined => {
    const step = interaction.result?.[EMAIL_STEP] as { accountId?: unknown; amr?: unknown } | undefined;
    if (typeof step?.accountId !== "string") return undefined;
    const amr = Array.isArray(step.amr) && step.amr.every((v) => typeof v === "string") ? step.amr : ["pwd"];
    return { accountId: step.accountId, amr };
  };

  /** Mails a fresh code; false when it could not be handed to the mail server (logged, never the code). */
  const sendCode = async (account: Account, log: FastifyBaseLogger): Promise<boolean> => {
    try {
      const code = await newEmailCode(db, account);
      await mail.send({ to: account.email, ...emailMessage(deps.publicUrl, code) });
      return true;
    } catch (err) {
      log.warn({ accountId: account.id, err: { message: (err as Error).message, code: (err as { code?: string }).code } }, "confirmation code not sent");
      return false;
    }
  };

  const render = (reply: FastifyReply, uid: string, account: Account, status: number, extra: { notice?: string; errors?: FormErrors<"code"> } = {}) =>
    deps.sendPage(
      reply,
      status,
      emailCodePage({
        homeUrl: deps.homeUrl,
        email: account.email,
        action: urls(uid).page,
        resendUrl: urls(uid).resend,
        skipUrl: urls(uid).skip,
        ...(mail.channel === "devOutbox" ? { devOutboxUrl: DEV_OUTBOX_PATH } : {}),
        ...extra,
      }),
    );

  const notSent = "We could not send the code just now. Try “Send a new code” in a moment.";

  return {
    /**
     * Whether this sign-in must stop to confirm the address: an invitation waits for it, it is not
     * confirmed, and a code can be mailed at all (not in production without SMTP_URL).
     */
    async needed(accountId: string): Promise<Account | undefined> {
      if (mail.channel === "none") return undefined;
      const account = await findAccountById(db, accountId);
      if (!account || account.emailVerified) return undefined;
      return (await hasPendingInvitation(db, account.email)) ? account : undefined;
    },

    /** Sends the code and the browser to the page that asks for it. */
    async start(request: UidRequest, reply: FastifyReply, account: Account, amr: string[]) {
      const interaction = await deps.loadInteraction(request, reply);
      if (!interaction) return deps.sendExpired(reply);
      const sent = await sendCode(account, request.log);
      interaction.result = { [EMAIL_STEP]: { accountId: account.id, amr, sent } };
      await interaction.persist();
      return reply.header("Cache-Control", "no-store").redirect(urls(interaction.uid).page, 303);
    },

    routes(app: FastifyInstance) {
      /** The interaction and the account confirming, or a reply already sent. */
      const load = async (request: UidRequest, reply: FastifyReply) => {
        const interaction = await deps.loadInteraction(request, reply);
        if (!interaction) return { done: deps.sendExpired(reply) };
        const step = stepOf(interaction);
        const account = step && (await findAccountById(db, step.accountId));
        if (!step || !account) return { done: reply.header("Cache-Control", "no-store").redirect(deps.interactionPath(interaction.uid), 303) };
        return { interaction, step, account };
      };

      app.get("/:uid/verify-email", async (request: UidRequest, reply) => {
        const s = await load(request, reply);
        if ("done" in s) return s.done;
        const sent = (s.interaction.result?.[EMAIL_STEP] as { sent?: boolean } | undefined)?.sent !== false;
        return render(reply, s.interaction.uid, s.account, 200, sent ? {} : { errors: { form: notSent } });
      });

      app.post(
        "/:uid/verify-email",
        { config: { rateLimit: { ...EMAIL_CODE_CHECK_LIMIT, hook: "preHandler", keyGenerator: (request: FastifyRequest) => `email-code|${request.ip}` } } },
        async (request: UidRequest, reply) => {
          const s = await load(request, reply);
          if ("done" in s) return s.done;
          const parsed = EmailCodeForm.safeParse(request.body ?? {});
          if (!parsed.success) return render(reply, s.interaction.uid, s.account, 400, { errors: fieldErrors(parsed.error) });
          const result = await confirmEmailCode(db, s.account.id, parsed.data.code);
          if (result === "confirmed") {
            request.log.info({ accountId: s.account.id }, "e-mail address confirmed");
            return deps.completeLogin(request, reply, s.account.id, s.step.amr);
          }
          // Never the code itself in the log.
          request.log.warn({ accountId: s.account.id, result }, "e-mail confirmation code refused");
          return render(reply, s.interaction.uid, s.account, result === "wrong" ? 401 : 400, {
            errors: {
              code:
                result === "wrong"
                  ? "This code is not correct. Enter the 6-digit code from the latest e-mail."
                  : `This code has expired or was mistyped ${EMAIL_CODE_MAX_ATTEMPTS} times. Send a new code.`,
            },
          });
        },
      );

      app.post(
        "/:uid/verify-email/resend",
        {
          config: { rateLimit: { ...EMAIL_CODE_RESEND_LIMIT, hook: "preHandler", keyGenerator: (request: FastifyRequest) => `email-code-send|${request.ip}` } },
        },
        async (request: UidRequest, reply) => {
          const s = await load(request, reply);
          if ("done" in s) return s.done;
          const sent = await sendCode(s.account, request.log);
          // A reload of the page then says whether the latest code left.
          s.interaction.result = { [EMAIL_STEP]: { ...s.step, sent } };
          await s.interaction.persist();
          return render(
            reply,
            s.interaction.uid,
            s.account,
            sent ? 200 : 503,
            sent ? { notice: "A new code is on its way. Only the latest code works." } : { errors: { form: notSent } },
          );
        },
      );

      app.post("/:uid/verify-email/skip", async (request: UidRequest, reply) => {
        const s = await load(request, reply);
        if ("done" in s) return s.done;
        return deps.completeLogin(request, reply, s.account.id, s.step.amr);
      });
    },
  };
}
