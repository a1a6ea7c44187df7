/**
 * The accounts a simulated server starts with: a few hundred by default, up to 100,000, each
 * with its opening deposit (so balance always equals the sum of its deals) and, for some, an
 * open position. Written straight into the books without events, so 100,000 take a second or two.
 * A generator: it stops after every few accounts, so a caller can build a large server in slices
 * and let the event loop run in between (SimulatedServer's `populateInSlices`).
 */
import { entryDeal, lotsToVolume, shareOfMoney, VOLUME_PER_LOT, type Deal, type Group } from "../../../core/trading/index.ts";
import type { EngineContext } from "./engine/context.ts";
import { NO_POSITIONS, type SimAccount } from "./engine/state.ts";
import { closingPrice, quoteOf } from "./engine/valuation.ts";
import type { Random } from "./random.ts";

const FIRST = [
  "Anna",
  "Ben",
  "Carla",
  "David",
  "Elena",
  "Farid",
  "Grace",
  "Hugo",
  "Ines",
  "Jonas",
  "Keiko",
  "Liam",
  "Maria",
  "Nikolai",
  "Olga",
  "Pavel",
  "Rosa",
  "Samir",
  "Tanja",
  "Yusuf",
];
const LAST = [
  "Adams",
  "Becker",
  "Costa",
  "Dubois",
  "Eriksen",
  "Fischer",
  "Garcia",
  "Horvat",
  "Ivanova",
  "Jansen",
  "Kowalski",
  "Lopez",
  "Meyer",
  "Novak",
  "Okafor",
  "Petrov",
  "Rossi",
  "Schmidt",
  "Tanaka",
  "Weber",
];
const PLACES: [country: string, city: string, phone: string][] = [
  ["Germany", "Berlin", "+49"],
  ["United Kingdom", "London", "+44"],
  ["Cyprus", "Limassol", "+357"],
  ["Spain", "Madrid", "+34"],
  ["Poland", "Warsaw", "+48"],
  ["United Arab Emirates", "Dubai", "+971"],
  ["South Africa", "Cape Town", "+27"],
  ["Japan", "Tokyo", "+81"],
  ["Brazil", "São Paulo", "+55"],
  ["Thailand", "Bangkok", "+66"],
];
const LEAD_SOURCES = ["website", "introducing broker", "referral", "campaign", ""];
const BALANCES = [1000, 2500, 5000, 10_000, 25_000, 50_000, 100_000];
const DAY = 86_400_000;

/** Accounts between two stops of `populate`: small enough that one step stays well under a millisecond. */
export const POPULATION_STEP = 100;

export function* populate(ctx: EngineContext, count: number, positionRatio: number, random: Random): Generator<void, void, void> {
  const groups = [...ctx.state.groups.values()];
  const start = ctx.clock.now();
  const unit = ctx.flavour.timeUnitMs;
  const at = (ms: number) => Math.floor(ms / unit) * unit;
  const accountUnit = ctx.flavour.accountTimeUnitMs;
  const accountAt = (ms: number) => Math.floor(ms / accountUnit) * accountUnit;
  const symbols = [...ctx.state.symbols.values()];
  for (let i = 0; i < count; i++) {
    const loginNumber = ctx.flavour.firstLogin + i;
    // Most clients sit in the first (retail) group.
    const group = random.chance(0.6) ? (groups[0] as Group) : random.pick(groups);
    const first = random.pick(FIRST);
    const last = random.pick(LAST);
    const [country, city, code] = random.pick(PLACES);
    const registration = accountAt(start - random.int(2, 365) * DAY);
    const account: SimAccount = {
      login: String(loginNumber),
      loginNumber,
      native: ctx.flavour.accountRef(loginNumber, group.native.platform === "MatchTrader" ? group.native.offerId : ""),
      group: group.name,
      name: `${first} ${last}`,
      email: `${first}.${last}.${loginNumber}@example.com`.toLowerCase(),
      phone: `${code} ${random.int(100, 999)} ${random.int(1000, 9999)}`,
      country,
      city,
      address: `${random.int(1, 200)} Market Street`,
      comment: "",
      registration,
      lastAccess: random.chance(0.8) ? accountAt(start - random.int(0, 7 * DAY)) : null,
      leverage: random.chance(0.7) ? group.defaultLeverage : random.pick([50, 100, 200, 500]),
      currency: group.currency,
      balance: 0,
      credit: 0,
      enabled: random.chance(0.98),
      readOnly: random.chance(0.03),
      changePasswordAllowed: true,
      otpEnabled: random.chance(0.1),
      agentAccount: random.chance(0.05) ? String(ctx.flavour.firstLogin) : null,
      leadSource: random.pick(LEAD_SOURCES),
      passwordHash: null,
      investorHash: null,
      positions: NO_POSITIONS,
    };
    ctx.state.addAccount(account);
    fund(ctx, account, false, random.pick(BALANCES) * 100, registration);
    if (random.chance(0.1)) fund(ctx, account, true, 50_000, registration);
    if (random.chance(positionRatio)) openInitial(ctx, account, group, random.pick(symbols).name, random, at(start - random.int(60_000, DAY)));
    if ((i + 1) % POPULATION_STEP === 0) yield;
  }
}

function fund(ctx: EngineContext, account: SimAccount, credit: boolean, amount: number, time: number): void {
  const ids = ctx.flavour.moneyDeal(credit);
  const deal: Deal = {
    id: ids.id,
    login: account.login,
    time,
    action: credit ? "credit" : "balance",
    entry: null,
    positionId: null,
    symbol: null,
    volume: 0,
    price: 0,
    profit: amount,
    commission: 0,
    swap: 0,
    comment: credit ? "Welcome bonus" : "Initial deposit",
    reason: "dealer",
    native: ids.native,
  };
  if (credit) account.credit += amount;
  else account.balance += amount;
  ctx.state.addDeal(deal);
}

function openInitial(ctx: EngineContext, account: SimAccount, group: Group, symbol: string, random: Random, time: number): void {
  const side = random.chance(0.5) ? "buy" : "sell";
  const volume = lotsToVolume(random.pick([0.01, 0.02, 0.05, 0.1]));
  const quote = quoteOf(ctx, symbol);
  const ids = ctx.flavour.newPosition();
  const commission = 0 - shareOfMoney(group.commissionPerLot, volume, VOLUME_PER_LOT); // 0 - x, not -x: no negative zero in money
  const position = {
    id: ids.id,
    login: account.login,
    symbol,
    side,
    volume,
    openTime: time,
    openPrice: side === "buy" ? quote.ask : quote.bid,
    currentPrice: closingPrice(ctx, { symbol, side }),
    sl: null,
    tp: null,
    profit: 0,
    swap: 0,
    commission,
    comment: "",
    reason: "client",
    previousId: null,
    native: ids.native,
  } as const;
  const record = { ...position };
  ctx.state.addPosition(record);
  const entry = ctx.flavour.entryDeal(record);
  ctx.state.addDeal(entryDeal(record, entry.id, entry.native));
  account.balance += commission;
}
