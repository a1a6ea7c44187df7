/** Creating, changing and listing accounts on the simulated server. */
import { createHash } from "node:crypto";
import { compileMask, type Account, type AccountPatch, type NewAccount, type PasswordKind } from "../../../../core/trading/index.ts";
import { connectorErrors } from "../../errors.ts";
import { commit, now, type EngineContext } from "./context.ts";
import { NO_POSITIONS, type SimAccount } from "./state.ts";
import { snapshotAccount } from "./valuation.ts";

export function hashPassword(password: string): string {
  return createHash("sha256").update(`toolbox-sim:${password}`).digest("hex");
}

export function nextLogin(ctx: EngineContext): number {
  return Math.max(ctx.flavour.firstLogin - 1, ctx.state.logins.at(-1) ?? 0) + 1;
}

export function createAccount(ctx: EngineContext, request: NewAccount): Account {
  const group = ctx.state.group(request.group);
  const loginNumber = request.login === undefined ? nextLogin(ctx) : Number(request.login);
  const login = String(loginNumber);
  if (ctx.state.accounts.has(login)) throw connectorErrors.invalidRequest(`Login ${login} is already taken on this server.`);
  const time = now(ctx);
  const unit = ctx.flavour.accountTimeUnitMs;
  const account: SimAccount = {
    login,
    loginNumber,
    native: ctx.flavour.accountRef(loginNumber, group.native.platform === "MatchTrader" ? group.native.offerId : ""),
    group: group.name,
    name: request.name,
    email: request.email ?? "",
    phone: request.phone ?? "",
    country: request.country ?? "",
    city: request.city ?? "",
    address: request.address ?? "",
    comment: request.comment ?? "",
    registration: Math.floor(time / unit) * unit,
    lastAccess: null,
    leverage: request.leverage ?? group.defaultLeverage,
    currency: group.currency,
    balance: 0,
    credit: 0,
    enabled: request.enabled ?? true,
    readOnly: request.readOnly ?? false,
    changePasswordAllowed: true,
    otpEnabled: false,
    agentAccount: null,
    leadSource: request.leadSource ?? "",
    passwordHash: hashPassword(request.password),
    investorHash: request.investorPassword ? hashPassword(request.investorPassword) : null,
    positions: NO_POSITIONS,
  };
  ctx.state.addAccount(account);
  ctx.journal.write(time, "ok", `'${login}': account created in group '${group.name}'`, login);
  return announce(ctx, account);
}

export function updateAccount(ctx: EngineContext, login: string, patch: AccountPatch): Account {
  const account = ctx.state.account(login);
  const changes: string[] = [];
  if (patch.group !== undefined && patch.group !== account.group) {
    const group = ctx.state.group(patch.group);
    const holdsMoney = account.balance !== 0 || account.credit !== 0 || account.positions.size > 0;
    if (group.currency !== account.currency && holdsMoney)
      throw connectorErrors.rejected("other", `Account ${login} holds money or positions in ${account.currency}; it cannot move to a ${group.currency} group.`);
    changes.push(`group '${account.group}' → '${group.name}'`);
    account.group = group.name;
    account.currency = group.currency;
  }
  if (patch.leverage !== undefined && patch.leverage !== account.leverage) {
    changes.push(`leverage 1:${account.leverage} → 1:${patch.leverage}`);
    account.leverage = patch.leverage;
  }
  for (const key of ["name", "email", "phone", "country", "city", "address", "comment", "leadSource"] as const) {
    const value = patch[key];
    if (value !== undefined && value !== account[key]) {
      changes.push(key);
      account[key] = value;
    }
  }
  for (const key of ["enabled", "readOnly", "changePasswordAllowed", "otpEnabled"] as const) {
    const value = patch[key];
    if (value !== undefined && value !== account[key]) {
      changes.push(`${key} ${value ? "on" : "off"}`);
      account[key] = value;
    }
  }
  if (changes.length === 0) return snapshotAccount(ctx, account);
  ctx.journal.write(now(ctx), "ok", `'${login}': account changed: ${changes.join(", ")}`, login);
  return announce(ctx, account);
}

export function setPassword(ctx: EngineContext, login: string, password: string, kind: PasswordKind): void {
  const account = ctx.state.account(login);
  if (kind === "main") account.passwordHash = hashPassword(password);
  else account.investorHash = hashPassword(password);
  ctx.journal.write(now(ctx), "ok", `'${login}': ${kind} password changed`, login);
}

/** Accounts after `after` (by login), matching the group mask, in login order. */
export function listAccounts(ctx: EngineContext, after: string | null, limit: number, groupMask: string | null): Account[] {
  const matches = compileMask(groupMask ?? "");
  const result: Account[] = [];
  const logins = ctx.state.logins;
  for (let i = after === null ? 0 : ctx.state.indexAfter(Number(after)); i < logins.length && result.length < limit; i++) {
    const account = ctx.state.account(String(logins[i]));
    if (matches(account.group)) result.push(snapshotAccount(ctx, account));
  }
  return result;
}

/** The account's new state goes out as one transaction. */
export function announce(ctx: EngineContext, account: SimAccount): Account {
  const snapshot = snapshotAccount(ctx, account);
  commit(ctx, [{ type: "accountChanged", time: now(ctx), login: account.login, account: snapshot }]);
  return snapshot;
}
