import { and, eq, sql } from "drizzle-orm";
import type { Account as ProviderAccount } from "oidc-provider";
import type { Db, DbOrTx } from "../db/client.ts";
import { idpAccounts } from "../db/schema.ts";
import { burnPasswordCheck, hashPassword, verifyPassword } from "./passwords.ts";
import { UUID_PATTERN as UUID } from "../../core/ids.ts";

/** A person known to the embedded provider; `id` is their `sub`. */
export interface Account {
  id: string;
  email: string;
  name: string;
  /** Whether the person proved they receive mail at `email` (docs/security.md "E-mail verification"). */
  emailVerified: boolean;
  createdAt: Date;
}

/** Thrown by createAccount when the email is already registered (in any letter case). */
export class EmailTakenError extends Error {
  constructor(readonly email: string) {
    super("An account with this email already exists.");
  }
}

/** Emails are compared trimmed and lower-cased; that is also how they are stored. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const publicColumns = {
  id: idpAccounts.id,
  email: idpAccounts.email,
  name: idpAccounts.name,
  emailVerified: sql<boolean>`${idpAccounts.emailVerifiedAt} is not null`.mapWith(Boolean),
  createdAt: idpAccounts.createdAt,
};

/** Register a person. The password is hashed here; the caller validates its strength first. */
export async function createAccount(db: Db, input: { email: string; name: string; password: string }): Promise<Account> {
  const email = normalizeEmail(input.email);
  const passwordHash = await hashPassword(input.password);
  // The unique index on lower(email) decides races; "do nothing" tells us we lost.
  const [created] = await db.insert(idpAccounts).values({ email, name: input.name.trim(), passwordHash }).onConflictDoNothing().returning(publicColumns);
  if (!created) throw new EmailTakenError(email);
  return created;
}

export async function findAccountByEmail(db: Db, email: string): Promise<Account | undefined> {
  const [row] = await db
    .select(publicColumns)
    .from(idpAccounts)
    .where(eq(sql`lower(${idpAccounts.email})`, normalizeEmail(email)))
    .limit(1);
  return row;
}

/** The account behind a `sub`, or undefined (also for a `sub` that is not one of our ids). */
export async function findAccountById(db: Db, id: string): Promise<Account | undefined> {
  if (!UUID.test(id)) return undefined;
  const [row] = await db.select(publicColumns).from(idpAccounts).where(eq(idpAccounts.id, id)).limit(1);
  return row;
}

/**
 * The account when email and password match, otherwise null. An unknown email costs a hash
 * too, so timing does not reveal which emails are registered.
 */
export async function verifyCredentials(db: Db, email: string, password: string): Promise<Account | null> {
  const [row] = await db
    .select({ ...publicColumns, passwordHash: idpAccounts.passwordHash })
    .from(idpAccounts)
    .where(eq(sql`lower(${idpAccounts.email})`, normalizeEmail(email)))
    .limit(1);
  if (!row) {
    await burnPasswordCheck(password);
    return null;
  }
  const { passwordHash, ...account } = row;
  return (await verifyPassword(password, passwordHash)) ? account : null;
}

/**
 * The person proved they receive mail at `email` (a mailed code, or a reset link they followed).
 * Counts only while the account still has that address. True when it was marked.
 */
export async function markEmailVerified(db: DbOrTx, accountId: string, email: string): Promise<boolean> {
  const marked = await db
    .update(idpAccounts)
    .set({ emailVerifiedAt: sql`coalesce(${idpAccounts.emailVerifiedAt}, now())` })
    .where(and(eq(idpAccounts.id, accountId), eq(sql`lower(${idpAccounts.email})`, normalizeEmail(email))))
    .returning({ id: idpAccounts.id });
  return marked.length > 0;
}

/** Replaces the password (the caller checked the rules and ended the person's sessions with it). */
export async function setPassword(db: DbOrTx, accountId: string, password: string): Promise<void> {
  const passwordHash = await hashPassword(password);
  await db.update(idpAccounts).set({ passwordHash, passwordChangedAt: new Date() }).where(eq(idpAccounts.id, accountId));
}

/** Does `password` match the account's? (An unknown account costs a hash too.) */
export async function checkPassword(db: DbOrTx, accountId: string, password: string): Promise<boolean> {
  const [row] = UUID.test(accountId)
    ? await db.select({ passwordHash: idpAccounts.passwordHash }).from(idpAccounts).where(eq(idpAccounts.id, accountId)).limit(1)
    : [];
  if (!row) {
    await burnPasswordCheck(password);
    return false;
  }
  return verifyPassword(password, row.passwordHash);
}

/**
 * oidc-provider's `findAccount`: the person behind `sub`, read fresh each time so a renamed
 * person shows up in the next token. The provider filters the claims by the granted scopes.
 * `email_verified` is true only once the person confirmed the address (a mailed code or link).
 */
export async function findAccount(db: Db, sub: string): Promise<ProviderAccount | undefined> {
  const account = await findAccountById(db, sub);
  if (!account) return undefined;
  return {
    accountId: account.id,
    claims: async () => ({ sub: account.id, email: account.email, email_verified: account.emailVerified, name: account.name }),
  };
}
