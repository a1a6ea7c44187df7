import { z } from "zod";

export const TwoFactorStatusSchema = z.object({
  available: z.boolean().meta({
    description: "False when people sign in through an external identity provider: two-factor is then that provider's business",
  }),
  enabled: z.boolean(),
  enabledAt: z.iso.datetime().nullable().meta({ description: "When two-factor sign-in was turned on" }),
  recoveryCodesLeft: z.number().int().meta({ description: "Recovery codes not used yet" }),
});

export const EnrolmentSchema = z.object({
  secret: z.string().meta({ description: "The TOTP secret in base32, to type into an authenticator app by hand" }),
  uri: z.string().meta({ description: "The otpauth:// URI the QR code holds" }),
  qrCode: z.string().meta({ description: "The QR code of the URI: an SVG image as a data: URL" }),
});

const code = z
  .string({ error: "Enter the code from your authenticator app." })
  .trim()
  .min(1, { error: "Enter the code from your authenticator app." })
  .max(64, { error: "This code is too long." });

export const ConfirmEnrolmentSchema = z.object({
  code: code.regex(/^\d{6}$/, { error: "Enter the 6-digit code your authenticator app shows for Toolbox." }),
});

export const DisableSchema = z.object({
  code: code.meta({ description: "A current code from the authenticator app, or a recovery code" }),
});

export const RecoveryCodesSchema = z.object({
  recoveryCodes: z.array(z.string()).meta({ description: "Single-use recovery codes; shown this once and never again" }),
});
