/** Match-Trader trading accounts ↔ accounts. */
import { moneyFromDecimal, moneyToDecimal, type Account, type AccountPatch, type NewAccount } from "../../../core/trading/index.ts";
import type { Codec } from "../wire/codec.ts";
import { codeTable, dropUndefined } from "../wire/convert.ts";
import type { MtNewTradingAccount, MtTradingAccount, MtTradingAccountUpdate } from "./native.ts";

const marginStatus = codeTable({ ok: "OK", marginCall: "MARGIN_CALL", stopOut: "STOP_OUT" } as const, "margin status");

/** Match-Trader keeps the offer on the account; Toolbox's Account names it in `native`. */
export function matchTraderAccountCodecs(time: Codec<number, string>) {
  const codecs: {
    account: Codec<Account, MtTradingAccount>;
    newAccount: Codec<NewAccount, MtNewTradingAccount>;
    accountPatch: Codec<AccountPatch, MtTradingAccountUpdate>;
  } = {
    account: {
      encode: (a) => ({
        uuid: a.native.platform === "MatchTrader" ? a.native.accountId : "",
        login: a.login,
        offerUuid: a.native.platform === "MatchTrader" ? a.native.offerId : "",
        group: a.group,
        created: time.encode(a.registration),
        lastLogin: a.lastAccess === null ? null : time.encode(a.lastAccess),
        leverage: a.leverage,
        currency: a.currency,
        balance: moneyToDecimal(a.balance),
        credit: moneyToDecimal(a.credit),
        equity: moneyToDecimal(a.equity),
        margin: moneyToDecimal(a.margin),
        freeMargin: moneyToDecimal(a.freeMargin),
        marginLevel: a.marginLevel === null ? null : a.marginLevel.toFixed(2),
        marginStatus: marginStatus.encode(a.marginState),
        accessRights: { login: a.enabled, trading: !a.readOnly, changePassword: a.changePasswordAllowed },
        twoFactorEnabled: a.otpEnabled,
        personalDetails: { name: a.name, email: a.email, phone: a.phone, country: a.country, city: a.city, address: a.address },
        comment: a.comment,
        ibLogin: a.agentAccount,
        leadSource: a.leadSource,
      }),
      decode: (t) => ({
        login: t.login,
        group: t.group,
        ...t.personalDetails,
        comment: t.comment,
        registration: time.decode(t.created),
        lastAccess: t.lastLogin === null ? null : time.decode(t.lastLogin),
        leverage: t.leverage,
        currency: t.currency,
        balance: moneyFromDecimal(t.balance),
        credit: moneyFromDecimal(t.credit),
        equity: moneyFromDecimal(t.equity),
        margin: moneyFromDecimal(t.margin),
        freeMargin: moneyFromDecimal(t.freeMargin),
        marginLevel: t.marginLevel === null ? null : Number(t.marginLevel),
        marginState: marginStatus.decode(t.marginStatus),
        enabled: t.accessRights.login,
        readOnly: !t.accessRights.trading,
        changePasswordAllowed: t.accessRights.changePassword,
        otpEnabled: t.twoFactorEnabled,
        agentAccount: t.ibLogin,
        leadSource: t.leadSource,
        native: { platform: "MatchTrader", accountId: t.uuid, offerId: t.offerUuid },
      }),
    },
    newAccount: {
      encode: (a) => ({
        login: a.login ?? null,
        group: a.group,
        personalDetails: {
          name: a.name,
          email: a.email ?? "",
          phone: a.phone ?? "",
          country: a.country ?? "",
          city: a.city ?? "",
          address: a.address ?? "",
        },
        comment: a.comment ?? "",
        leverage: a.leverage ?? null,
        accessRights: { login: a.enabled ?? true, trading: !(a.readOnly ?? false) },
        leadSource: a.leadSource ?? "",
        password: a.password,
        investorPassword: a.investorPassword ?? null,
      }),
      decode: (t) =>
        dropUndefined({
          login: t.login ?? undefined,
          group: t.group,
          ...t.personalDetails,
          comment: t.comment,
          leverage: t.leverage ?? undefined,
          enabled: t.accessRights.login,
          readOnly: !t.accessRights.trading,
          leadSource: t.leadSource,
          password: t.password,
          investorPassword: t.investorPassword ?? undefined,
        }),
    },
    accountPatch: {
      encode: (p) => {
        const details = dropUndefined({
          name: p.name,
          email: p.email,
          phone: p.phone,
          country: p.country,
          city: p.city,
          address: p.address,
        });
        const rights = dropUndefined({
          login: p.enabled,
          trading: p.readOnly === undefined ? undefined : !p.readOnly,
          changePassword: p.changePasswordAllowed,
        });
        return dropUndefined({
          group: p.group,
          leverage: p.leverage,
          personalDetails: Object.keys(details).length ? details : undefined,
          comment: p.comment,
          accessRights: Object.keys(rights).length ? rights : undefined,
          twoFactorEnabled: p.otpEnabled,
          leadSource: p.leadSource,
        });
      },
      decode: (u) =>
        dropUndefined({
          group: u.group,
          leverage: u.leverage,
          ...u.personalDetails,
          comment: u.comment,
          enabled: u.accessRights?.login,
          readOnly: u.accessRights?.trading === undefined ? undefined : !u.accessRights.trading,
          changePasswordAllowed: u.accessRights?.changePassword,
          otpEnabled: u.twoFactorEnabled,
          leadSource: u.leadSource,
        }),
    },
  };
  return codecs;
}
