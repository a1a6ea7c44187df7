import { z } from "zod";
import { isCommonPassword } from "./commonPasswords.ts";
import { MAX_PASSWORD_LENGTH } from "./passwords.ts";
import type { FormErrors } from "./views/pages.ts";

export const MIN_PASSWORD_LENGTH = 10;

/** A form field as @fastify/formbody gives it: a string, or several when repeated (take the first). */
const formString = z.preprocess(firstValue, z.string().default(""));

function firstValue(v: unknown): unknown {
  return Array.isArray(v) ? (v as readonly unknown[])[0] : v;
}

const email = formString.pipe(
  z
    .string()
    .trim()
    .min(1, "Enter your email address.")
    .max(254, "This email address is too long.")
    .pipe(z.email("Enter a valid email address, like name@example.com.")),
);

export const SignInForm = z.object({
  email,
  password: formString.pipe(z.string().min(1, "Enter your password.").max(MAX_PASSWORD_LENGTH, "This password is too long.")),
});
export type SignInForm = z.infer<typeof SignInForm>;

/** A new password, at sign-up, at a reset and when changing it: the same rules everywhere. */
const newPassword = formString.pipe(
  z
    .string()
    .min(MIN_PASSWORD_LENGTH, `Use at least ${MIN_PASSWORD_LENGTH} characters.`)
    .max(MAX_PASSWORD_LENGTH, `Use at most ${MAX_PASSWORD_LENGTH} characters.`),
);

interface NewPasswordFields {
  email: string;
  password: string;
  confirmPassword: string;
}

/**
 * The rules of a new password beyond its length: typed twice alike, not the person's email
 * address, not one of the most common passwords. Parse with `safeParseAsync` (the list is loaded
 * on first use).
 */
function withPasswordRules<S extends z.ZodType<NewPasswordFields>>(schema: S) {
  return schema
    .refine((f) => f.password === f.confirmPassword, { path: ["confirmPassword"], message: "The passwords do not match." })
    .refine((f) => f.password.normalize("NFKC").trim().toLowerCase() !== f.email.trim().toLowerCase(), {
      path: ["password"],
      message: "Your password must not be your email address.",
    })
    .refine(async (f) => f.password.length < MIN_PASSWORD_LENGTH || !(await isCommonPassword(f.password, MIN_PASSWORD_LENGTH)), {
      path: ["password"],
      message: "This is one of the most common passwords, the first ones attackers try. Choose a less predictable one, like a few unrelated words.",
    });
}

export const SignUpForm = withPasswordRules(
  z.object({
    name: formString.pipe(z.string().trim().min(1, "Enter your name.").max(100, "Use at most 100 characters.")),
    email,
    password: newPassword,
    confirmPassword: formString,
  }),
);
export type SignUpForm = z.infer<typeof SignUpForm>;

/** The first message per field, ready for the page. */
export function fieldErrors<F extends string>(error: z.ZodError): FormErrors<F> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? "form");
    out[key] ??= issue.message;
  }
  return out as FormErrors<F>;
}

/** The raw text of a field, to show it back (never used for passwords). */
export function formValue(body: unknown, key: string): string {
  const v = (body as Record<string, unknown> | undefined)?.[key];
  const s = firstValue(v);
  return typeof s === "string" ? s.slice(0, 254) : "";
}

/** The second step of a sign-in: a code from the authenticator app, or a recovery code. */
export const TwoFactorForm = z.object({
  code: formString.pipe(z.string().trim().min(1, "Enter the code from your authenticator app.").max(64, "This code is too long.")),
});
export type TwoFactorForm = z.infer<typeof TwoFactorForm>;

/**
 * A new password for a known person (reset link, change in the profile): `email` is the account's,
 * given by the server, never by the form.
 */
export const NewPasswordForm = withPasswordRules(z.object({ email: z.string(), password: newPassword, confirmPassword: formString }));
export type NewPasswordForm = z.infer<typeof NewPasswordForm>;

/** The first step of a password reset: the address to send the link to. */
export const ForgotPasswordForm = z.object({ email });

/** The confirmation code mailed to the person. */
export const EmailCodeForm = z.object({
  code: formString.pipe(z.string().trim().min(1, "Enter the 6-digit code from the e-mail.").max(32, "This code is too long.")),
});
