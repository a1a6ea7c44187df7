/**
 * The most common passwords, refused at sign-up: they are the first an attacker tries. The list is
 * zxcvbn-ts's (`@zxcvbn-ts/language-common`, `passwords-common`: about 49,000 passwords from
 * public breaches, most common first), loaded on the first sign-up — not at start — and kept.
 * Only entries long enough to pass the length rule matter; compared in lower case after NFKC
 * normalization (the form passwords are hashed in), so `Password123` counts as `password123`.
 */
let common: Promise<ReadonlySet<string>> | undefined;

const normalize = (password: string) => password.normalize("NFKC").toLowerCase();

function load(minLength: number): Promise<ReadonlySet<string>> {
  common ??= import("@zxcvbn-ts/language-common").then(
    ({ dictionary }) => new Set(dictionary["passwords-common"].filter((p) => p.length >= minLength).map(normalize)),
    (err: unknown) => {
      common = undefined;
      throw err;
    },
  );
  return common;
}

export async function isCommonPassword(password: string, minLength: number): Promise<boolean> {
  return (await load(minLength)).has(normalize(password));
}
