/** MT4 user records ↔ accounts. */
import { moneyToNumber, roundToMinor, type Account, type AccountPatch, type NewAccount } from "../../../core/trading/index.ts";
import type { Codec } from "../wire/codec.ts";
import { codeTable, dropUndefined, flag, numericId } from "../wire/convert.ts";
import { MT4_MARGIN_LEVEL, type Mt4NewUser, type Mt4UserPatch, type Mt4UserRecord } from "./native.ts";

type TimeCodec = Codec<number, number>;
const marginLevelType = codeTable(MT4_MARGIN_LEVEL, "margin level");

export function mt4AccountCodecs(time: TimeCodec, login: Codec<string, number>) {
  const orNever = (t: number | null) => (t === null ? 0 : time.encode(t));
  const codecs: {
    account: Codec<Account, Mt4UserRecord>;
    newAccount: Codec<NewAccount, Mt4NewUser>;
    accountPatch: Codec<AccountPatch, Mt4UserPatch>;
  } = {
    account: {
      encode: (a): Mt4UserRecord => ({
        login: login.encode(a.login),
        group: a.group,
        name: a.name,
        email: a.email,
        phone: a.phone,
        country: a.country,
        city: a.city,
        address: a.address,
        comment: a.comment,
        regdate: time.encode(a.registration),
        lastdate: orNever(a.lastAccess),
        leverage: a.leverage,
        currency: a.currency,
        balance: moneyToNumber(a.balance),
        credit: moneyToNumber(a.credit),
        equity: moneyToNumber(a.equity),
        margin: moneyToNumber(a.margin),
        margin_free: moneyToNumber(a.freeMargin),
        margin_level: a.marginLevel ?? 0,
        level_type: marginLevelType.encode(a.marginState),
        enable: flag(a.enabled),
        enable_read_only: flag(a.readOnly),
        enable_change_password: flag(a.changePasswordAllowed),
        enable_otp: flag(a.otpEnabled),
        agent_account: a.agentAccount === null ? 0 : numericId(a.agentAccount, "Agent account"),
        lead_source: a.leadSource,
      }),
      decode: (u): Account => ({
        login: String(u.login),
        group: u.group,
        name: u.name,
        email: u.email,
        phone: u.phone,
        country: u.country,
        city: u.city,
        address: u.address,
        comment: u.comment,
        registration: time.decode(u.regdate),
        lastAccess: u.lastdate === 0 ? null : time.decode(u.lastdate),
        leverage: u.leverage,
        currency: u.currency,
        balance: roundToMinor(u.balance),
        credit: roundToMinor(u.credit),
        equity: roundToMinor(u.equity),
        margin: roundToMinor(u.margin),
        freeMargin: roundToMinor(u.margin_free),
        marginLevel: u.margin === 0 ? null : u.margin_level,
        marginState: marginLevelType.decode(u.level_type),
        enabled: u.enable === 1,
        readOnly: u.enable_read_only === 1,
        changePasswordAllowed: u.enable_change_password === 1,
        otpEnabled: u.enable_otp === 1,
        agentAccount: u.agent_account === 0 ? null : String(u.agent_account),
        leadSource: u.lead_source,
        native: { platform: "MT4", login: u.login },
      }),
    },
    newAccount: {
      encode: (a) => ({
        login: a.login === undefined ? 0 : login.encode(a.login),
        group: a.group,
        name: a.name,
        email: a.email ?? "",
        phone: a.phone ?? "",
        country: a.country ?? "",
        city: a.city ?? "",
        address: a.address ?? "",
        comment: a.comment ?? "",
        leverage: a.leverage ?? 0,
        enable: flag(a.enabled ?? true),
        enable_read_only: flag(a.readOnly ?? false),
        lead_source: a.leadSource ?? "",
        password: a.password,
        password_investor: a.investorPassword ?? "",
      }),
      decode: (u) => ({
        ...(u.login === 0 ? {} : { login: String(u.login) }),
        group: u.group,
        name: u.name,
        email: u.email,
        phone: u.phone,
        country: u.country,
        city: u.city,
        address: u.address,
        comment: u.comment,
        ...(u.leverage === 0 ? {} : { leverage: u.leverage }),
        enabled: u.enable === 1,
        readOnly: u.enable_read_only === 1,
        leadSource: u.lead_source,
        password: u.password,
        ...(u.password_investor === "" ? {} : { investorPassword: u.password_investor }),
      }),
    },
    accountPatch: {
      encode: (p) =>
        dropUndefined({
          group: p.group,
          leverage: p.leverage,
          name: p.name,
          email: p.email,
          phone: p.phone,
          country: p.country,
          city: p.city,
          address: p.address,
          comment: p.comment,
          enable: p.enabled === undefined ? undefined : flag(p.enabled),
          enable_read_only: p.readOnly === undefined ? undefined : flag(p.readOnly),
          enable_change_password: p.changePasswordAllowed === undefined ? undefined : flag(p.changePasswordAllowed),
          enable_otp: p.otpEnabled === undefined ? undefined : (0 as const),
          lead_source: p.leadSource,
        }),
      decode: (p) =>
        dropUndefined({
          group: p.group,
          leverage: p.leverage,
          name: p.name,
          email: p.email,
          phone: p.phone,
          country: p.country,
          city: p.city,
          address: p.address,
          comment: p.comment,
          enabled: p.enable === undefined ? undefined : p.enable === 1,
          readOnly: p.enable_read_only === undefined ? undefined : p.enable_read_only === 1,
          changePasswordAllowed: p.enable_change_password === undefined ? undefined : p.enable_change_password === 1,
          otpEnabled: p.enable_otp === undefined ? undefined : (false as const),
          leadSource: p.lead_source,
        }),
    },
  };
  return codecs;
}
