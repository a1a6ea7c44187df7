/** MT5 users ↔ accounts. Rights travel as IMTUser bits. */
import { moneyFromDecimal, moneyToDecimal, type Account, type AccountPatch, type NewAccount } from "../../../core/trading/index.ts";
import type { Codec } from "../wire/codec.ts";
import { codeTable, dropUndefined, numericId } from "../wire/convert.ts";
import { MT5_ACTIVATION, MT5_RIGHT, type Mt5NewUser, type Mt5User, type Mt5UserUpdate } from "./native.ts";

const activation = codeTable(MT5_ACTIVATION, "margin state");
const seconds = { encode: (ms: number) => Math.floor(ms / 1000), decode: (s: number) => s * 1000 };

function rights(a: Pick<Account, "enabled" | "readOnly" | "changePasswordAllowed" | "otpEnabled">): number {
  return (
    (a.enabled ? MT5_RIGHT.enabled : 0) |
    (a.readOnly ? MT5_RIGHT.tradeDisabled : 0) |
    (a.changePasswordAllowed ? MT5_RIGHT.changePassword : 0) |
    (a.otpEnabled ? MT5_RIGHT.otpEnabled : 0)
  );
}

const has = (bits: number, right: number) => (bits & right) !== 0;

export function mt5AccountCodecs(serverMs: Codec<number, number>) {
  // Registration and last access are whole seconds of server time in IMTUser.
  const serverSeconds = {
    encode: (utc: number) => seconds.encode(serverMs.encode(utc)),
    decode: (s: number) => serverMs.decode(seconds.decode(s)),
  };
  const codecs: {
    account: Codec<Account, Mt5User>;
    newAccount: Codec<NewAccount, Mt5NewUser>;
    accountPatch: Codec<AccountPatch, Mt5UserUpdate>;
  } = {
    account: {
      encode: (a) => ({
        Login: String(numericId(a.login, "Login")),
        Group: a.group,
        Name: a.name,
        Email: a.email,
        Phone: a.phone,
        Country: a.country,
        City: a.city,
        Address: a.address,
        Comment: a.comment,
        Registration: serverSeconds.encode(a.registration),
        LastAccess: a.lastAccess === null ? 0 : serverSeconds.encode(a.lastAccess),
        Leverage: a.leverage,
        Currency: a.currency,
        Balance: moneyToDecimal(a.balance),
        Credit: moneyToDecimal(a.credit),
        Equity: moneyToDecimal(a.equity),
        Margin: moneyToDecimal(a.margin),
        MarginFree: moneyToDecimal(a.freeMargin),
        MarginLevel: a.marginLevel === null ? "0.00" : a.marginLevel.toFixed(2),
        SOActivation: activation.encode(a.marginState),
        Rights: rights(a),
        Agent: a.agentAccount ?? "0",
        LeadSource: a.leadSource,
      }),
      decode: (u) => ({
        login: u.Login,
        group: u.Group,
        name: u.Name,
        email: u.Email,
        phone: u.Phone,
        country: u.Country,
        city: u.City,
        address: u.Address,
        comment: u.Comment,
        registration: serverSeconds.decode(u.Registration),
        lastAccess: u.LastAccess === 0 ? null : serverSeconds.decode(u.LastAccess),
        leverage: u.Leverage,
        currency: u.Currency,
        balance: moneyFromDecimal(u.Balance),
        credit: moneyFromDecimal(u.Credit),
        equity: moneyFromDecimal(u.Equity),
        margin: moneyFromDecimal(u.Margin),
        freeMargin: moneyFromDecimal(u.MarginFree),
        marginLevel: moneyFromDecimal(u.Margin) === 0 ? null : Number(u.MarginLevel),
        marginState: activation.decode(u.SOActivation),
        enabled: has(u.Rights, MT5_RIGHT.enabled),
        readOnly: has(u.Rights, MT5_RIGHT.tradeDisabled),
        changePasswordAllowed: has(u.Rights, MT5_RIGHT.changePassword),
        otpEnabled: has(u.Rights, MT5_RIGHT.otpEnabled),
        agentAccount: u.Agent === "0" ? null : u.Agent,
        leadSource: u.LeadSource,
        native: { platform: "MT5", login: Number(u.Login) },
      }),
    },
    newAccount: {
      encode: (a) => ({
        Login: a.login === undefined ? "0" : String(numericId(a.login, "Login")),
        Group: a.group,
        Name: a.name,
        Email: a.email ?? "",
        Phone: a.phone ?? "",
        Country: a.country ?? "",
        City: a.city ?? "",
        Address: a.address ?? "",
        Comment: a.comment ?? "",
        Leverage: a.leverage ?? 0,
        Rights: rights({
          enabled: a.enabled ?? true,
          readOnly: a.readOnly ?? false,
          changePasswordAllowed: true,
          otpEnabled: false,
        }),
        LeadSource: a.leadSource ?? "",
        PassMain: a.password,
        PassInvestor: a.investorPassword ?? "",
      }),
      decode: (u) => ({
        ...(u.Login === "0" ? {} : { login: u.Login }),
        group: u.Group,
        name: u.Name,
        email: u.Email,
        phone: u.Phone,
        country: u.Country,
        city: u.City,
        address: u.Address,
        comment: u.Comment,
        ...(u.Leverage === 0 ? {} : { leverage: u.Leverage }),
        enabled: has(u.Rights, MT5_RIGHT.enabled),
        readOnly: has(u.Rights, MT5_RIGHT.tradeDisabled),
        leadSource: u.LeadSource,
        password: u.PassMain,
        ...(u.PassInvestor === "" ? {} : { investorPassword: u.PassInvestor }),
      }),
    },
    accountPatch: {
      encode: (p) => {
        const set = bitsWhere(p, true);
        const clear = bitsWhere(p, false);
        return dropUndefined({
          Group: p.group,
          Leverage: p.leverage,
          Name: p.name,
          Email: p.email,
          Phone: p.phone,
          Country: p.country,
          City: p.city,
          Address: p.address,
          Comment: p.comment,
          LeadSource: p.leadSource,
          RightsSet: set === 0 ? undefined : set,
          RightsClear: clear === 0 ? undefined : clear,
        });
      },
      decode: (u) => {
        const flagOf = (right: number) => (has(u.RightsSet ?? 0, right) ? true : has(u.RightsClear ?? 0, right) ? false : undefined);
        return dropUndefined({
          group: u.Group,
          leverage: u.Leverage,
          name: u.Name,
          email: u.Email,
          phone: u.Phone,
          country: u.Country,
          city: u.City,
          address: u.Address,
          comment: u.Comment,
          leadSource: u.LeadSource,
          enabled: flagOf(MT5_RIGHT.enabled),
          readOnly: flagOf(MT5_RIGHT.tradeDisabled),
          changePasswordAllowed: flagOf(MT5_RIGHT.changePassword),
          otpEnabled: flagOf(MT5_RIGHT.otpEnabled) === false ? (false as const) : undefined,
        });
      },
    },
  };
  return codecs;
}

function bitsWhere(p: AccountPatch, value: boolean): number {
  return (
    (p.enabled === value ? MT5_RIGHT.enabled : 0) |
    (p.readOnly === value ? MT5_RIGHT.tradeDisabled : 0) |
    (p.changePasswordAllowed === value ? MT5_RIGHT.changePassword : 0) |
    (p.otpEnabled === value ? MT5_RIGHT.otpEnabled : 0)
  );
}
