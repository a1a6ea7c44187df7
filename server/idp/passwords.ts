import crypto from "node:crypto";
import { promisify } from "node:util";

const scrypt = promisify(crypto.scrypt) as (
  password: crypto.BinaryLike,
  salt: crypto.BinaryLike,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

/**
 * scrypt cost: N = 2^15, r = 8, p = 1 (OWASP's minimum for scrypt) needs 128·N·r = 32 MiB,
 * exactly Node's default `maxmem`, which Node treats as an error, hence the explicit 64 MiB.
 */
const LOG_N = 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 64;
const SALT_LENGTH = 16;
const maxmemFor = (logN: number, r: number) => 2 * 128 * 2 ** logN * r;

/** Longest password we hash; a bound so nobody can make us hash megabytes. */
export const MAX_PASSWORD_LENGTH = 256;

/**
 * Hash a password with scrypt and a random salt, encoded in the PHC string format with its
 * parameters (`$scrypt$ln=15,r=8,p=1$<salt>$<hash>`), so the cost can be raised later
 * without breaking stored hashes.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(SALT_LENGTH);
  const hash = await scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, {
    N: 2 ** LOG_N,
    r: R,
    p: P,
    maxmem: maxmemFor(LOG_N, R),
  });
  return `$scrypt$ln=${LOG_N},r=${R},p=${P}$${salt.toString("base64url")}$${hash.toString("base64url")}`;
}

const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

/** Does `password` match `encoded`? Constant-time comparison; a malformed hash never matches. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const m = PHC.exec(encoded);
  if (!m) return false;
  const [, logNText, rText, pText, saltText, hashText] = m;
  // Every group of PHC is mandatory, so this never refuses a match; it gives the types their strings.
  if (!logNText || !rText || !pText || !saltText || !hashText) return false;
  const [logN, r, p] = [Number(logNText), Number(rText), Number(pText)];
  // Refuse absurd parameters a tampered row could carry (they would pin the CPU or memory).
  if (logN < 10 || logN > 20 || r < 1 || r > 32 || p < 1 || p > 16) return false;
  const salt = Buffer.from(saltText, "base64url");
  const expected = Buffer.from(hashText, "base64url");
  if (expected.length < 16) return false;
  const actual = await scrypt(password.normalize("NFKC"), salt, expected.length, {
    N: 2 ** logN,
    r,
    p,
    maxmem: maxmemFor(logN, r),
  });
  return crypto.timingSafeEqual(actual, expected);
}

let dummyHash: Promise<string> | undefined;

/**
 * Spend the same time as checking a real password, so an unknown email cannot be told apart
 * from a wrong password by how long the answer takes.
 */
export async function burnPasswordCheck(password: string): Promise<void> {
  dummyHash ??= hashPassword(crypto.randomBytes(16).toString("hex"));
  await verifyPassword(password, await dummyHash);
}
