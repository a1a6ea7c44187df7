import crypto from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { AppContext } from "./context.ts";
import { tradePlatformApps, tradePlatforms, users } from "./db/schema.ts";
import { createAccount, findAccountByEmail } from "./idp/people.ts";
import { createOrganizationWithAdmin, upsertUser } from "./modules/organizations/repository.ts";

export interface SeedResult {
  /** Set only on the start that created the demo administrator. */
  demo?: { email: string; password?: string };
}

export const DEMO_EMAIL = "demo@toolbox.local";
export const DEMO_NAME = "Demo Administrator";
export const DEMO_ORGANIZATION = "Demo Brokerage";

/**
 * One simulated server of each type, so a newcomer sees live data at once: a few hundred
 * accounts and a few trades a second each, deterministic from their seeds. MetaTrader servers
 * usually run on broker time (UTC+2/+3); Match-Trader speaks UTC.
 */
export const DEMO_PLATFORMS = [
  { name: "Demo MT4", type: "MT4", timeZone: "Europe/Athens", seed: 4 },
  { name: "Demo MT5", type: "MT5", timeZone: "Europe/Athens", seed: 5 },
  { name: "Demo Match-Trader", type: "MatchTrader", timeZone: "UTC", seed: 7 },
] as const;

/** 18 random bytes: 24 URL-safe characters, 144 bits, printed once. */
function generatePassword(): string {
  return crypto.randomBytes(18).toString("base64url");
}

/**
 * First start with the embedded provider: the demo administrator (DEMO_PASSWORD, or a generated
 * password returned once so the start can print it) and "Demo Brokerage" with them as its
 * administrator, with one simulated server of each platform type (DEMO_PLATFORMS), the Trades
 * Blotter assigned to each. The person
 * is mirrored into `users` already provisioned, so their first sign-in does not create a second,
 * empty organization. Idempotent: later starts find the account and do
 * nothing; concurrent first starts serialize on an advisory lock. `log` (default: console) says
 * why nothing is seeded with an external provider.
 */
export async function seedDemo(ctx: AppContext, opts: { log?: (message: string) => void } = {}): Promise<SeedResult> {
  const { config, database } = ctx;
  if (!config.oidc.embedded) {
    (opts.log ?? console.info)(`No demo data seeded: accounts live at the external identity provider (${config.oidc.authority}), not in Toolbox.`);
    return {};
  }
  return database.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('toolbox.seed.demo'))`);
    if (await findAccountByEmail(tx, DEMO_EMAIL)) return {};

    const generated = config.demoPassword ? undefined : generatePassword();
    const account = await createAccount(tx, { email: DEMO_EMAIL, name: DEMO_NAME, password: config.demoPassword ?? generated! });
    await upsertUser(tx, { sub: account.id, email: account.email, name: account.name });
    const organization = await createOrganizationWithAdmin(tx, { name: DEMO_ORGANIZATION, adminSub: account.id });
    // Seeded with the organization, once: a demo platform the administrator deletes stays deleted.
    const platforms = await tx
      .insert(tradePlatforms)
      .values(
        DEMO_PLATFORMS.map((p) => ({
          organizationId: organization.id,
          name: p.name,
          type: p.type,
          timeZone: p.timeZone,
          connection: { kind: "simulated" as const, accounts: 300, tradeRate: config.demoTradeRate, seed: p.seed },
        })),
      )
      .returning({ id: tradePlatforms.id });
    // With the Trades Blotter assigned, so a newcomer's first blotter and the overview's volume are not empty.
    await tx.insert(tradePlatformApps).values(platforms.map((p) => ({ platformId: p.id, app: "tradesBlotter" as const, enabled: true })));
    await tx.update(users).set({ provisionedAt: new Date() }).where(eq(users.sub, account.id));
    return { demo: { email: DEMO_EMAIL, password: generated } };
  });
}
