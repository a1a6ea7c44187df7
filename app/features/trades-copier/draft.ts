/**
 * The link form's draft: every field as the person typed it (text for numbers), to and from the
 * contract (core/schemas/copier.ts), and the API's (or the schema's) issue paths mapped onto the
 * form's fields so each error shows on its own field.
 */
import type { CopyLink, CopyLinkBodyInput, FollowerSettings, FollowerSettingsInput } from "@core/schemas/copier";

export type VolumeModeName = "same" | "multiplier" | "fixed" | "equity" | "balance" | "riskPercent";
export type RiskAction = "off" | "suspend" | "closeAndSuspend";

export interface FollowerDraft {
  platformId: string;
  login: string;
  enabled: boolean;
  volumeMode: VolumeModeName;
  /** The mode's one figure: multiplier, lots, factor or percent. */
  volumeValue: string;
  alignContractSize: boolean;
  minLots: string;
  maxLots: string;
  forceMinimum: boolean;
  direction: "same" | "reverse";
  /** One pair a line: `SOURCE=FOLLOWER`. */
  pairs: string;
  sourcePrefix: string;
  sourceSuffix: string;
  followerPrefix: string;
  followerSuffix: string;
  allowedSymbols: string;
  blockedSymbols: string;
  stopsMode: "copy" | "none" | "fixed";
  slPoints: string;
  tpPoints: string;
  copyPendingOrders: boolean;
  copyPartialCloses: boolean;
  copyExistingPositions: boolean;
  maxDelaySeconds: string;
  maxDeviationPoints: string;
  equityFloorAction: RiskAction;
  equityFloorAmount: string;
  dailyLossAction: RiskAction;
  dailyLossAmount: string;
  closeOnly: boolean;
}

export interface LinkDraft {
  name: string;
  enabled: boolean;
  sourcePlatformId: string;
  sourceLogin: string;
  followers: FollowerDraft[];
}

export const newFollower = (platformId = ""): FollowerDraft => ({
  platformId,
  login: "",
  enabled: true,
  volumeMode: "same",
  volumeValue: "",
  alignContractSize: true,
  minLots: "",
  maxLots: "",
  forceMinimum: false,
  direction: "same",
  pairs: "",
  sourcePrefix: "",
  sourceSuffix: "",
  followerPrefix: "",
  followerSuffix: "",
  allowedSymbols: "",
  blockedSymbols: "",
  stopsMode: "copy",
  slPoints: "",
  tpPoints: "",
  copyPendingOrders: true,
  copyPartialCloses: true,
  copyExistingPositions: false,
  maxDelaySeconds: "",
  maxDeviationPoints: "",
  equityFloorAction: "off",
  equityFloorAmount: "",
  dailyLossAction: "off",
  dailyLossAmount: "",
  closeOnly: false,
});

export const newLink = (platformId = ""): LinkDraft => ({
  name: "",
  enabled: true,
  sourcePlatformId: platformId,
  sourceLogin: "",
  followers: [newFollower(platformId)],
});

const text = (n: number | string | null | undefined) => (n === null || n === undefined ? "" : String(n));

function volumeValueOf(v: FollowerSettings["volume"]): string {
  switch (v.mode) {
    case "multiplier":
      return text(v.multiplier);
    case "fixed":
      return v.lots;
    case "equity":
    case "balance":
      return text(v.factor);
    case "riskPercent":
      return text(v.percent);
    default:
      return "";
  }
}

export function followerDraftOf(f: FollowerSettings): FollowerDraft {
  return {
    platformId: f.account.platformId,
    login: f.account.login,
    enabled: f.enabled,
    volumeMode: f.volume.mode,
    volumeValue: volumeValueOf(f.volume),
    alignContractSize: f.alignContractSize,
    minLots: text(f.minLots),
    maxLots: text(f.maxLots),
    forceMinimum: f.forceMinimum,
    direction: f.direction,
    pairs: f.symbols.pairs.map((p) => `${p.source}=${p.follower}`).join("\n"),
    sourcePrefix: f.symbols.sourcePrefix,
    sourceSuffix: f.symbols.sourceSuffix,
    followerPrefix: f.symbols.followerPrefix,
    followerSuffix: f.symbols.followerSuffix,
    allowedSymbols: f.allowedSymbols,
    blockedSymbols: f.blockedSymbols,
    stopsMode: f.stops.mode,
    slPoints: f.stops.mode === "fixed" ? text(f.stops.slPoints) : "",
    tpPoints: f.stops.mode === "fixed" ? text(f.stops.tpPoints) : "",
    copyPendingOrders: f.copyPendingOrders,
    copyPartialCloses: f.copyPartialCloses,
    copyExistingPositions: f.copyExistingPositions,
    maxDelaySeconds: text(f.maxDelaySeconds),
    maxDeviationPoints: text(f.maxDeviationPoints),
    equityFloorAction: f.equityFloor?.action ?? "off",
    equityFloorAmount: text(f.equityFloor?.amount),
    dailyLossAction: f.dailyLossLimit?.action ?? "off",
    dailyLossAmount: text(f.dailyLossLimit?.amount),
    closeOnly: f.closeOnly,
  };
}

export function linkDraftOf(link: CopyLink): LinkDraft {
  return {
    name: link.name,
    enabled: link.enabled,
    sourcePlatformId: link.source.platformId,
    sourceLogin: link.source.login,
    followers: link.followers.map(followerDraftOf),
  };
}

/** A number field: empty is null; anything else goes as a number (NaN included, so the schema names it). */
const num = (s: string): number | null => (s.trim() === "" ? null : Number(s.trim()));
const lotsOrNull = (s: string): string | null => (s.trim() === "" ? null : s.trim());

function volumeOf(d: FollowerDraft): FollowerSettingsInput["volume"] {
  const value = num(d.volumeValue) ?? undefined;
  switch (d.volumeMode) {
    case "multiplier":
      return { mode: "multiplier", multiplier: value as number };
    case "fixed":
      return { mode: "fixed", lots: d.volumeValue.trim() };
    case "equity":
    case "balance":
      return { mode: d.volumeMode, factor: value };
    case "riskPercent":
      return { mode: "riskPercent", percent: value as number };
    default:
      return { mode: "same" };
  }
}

function pairsOf(text: string) {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [source = "", follower = ""] = line.split("=").map((s) => s.trim());
      return { source, follower };
    });
}

const riskOf = (action: RiskAction, amount: string) => (action === "off" ? null : { action, amount: num(amount) as number });

export function followerInputOf(d: FollowerDraft): FollowerSettingsInput {
  return {
    account: { platformId: d.platformId, login: d.login.trim() },
    enabled: d.enabled,
    volume: volumeOf(d),
    alignContractSize: d.alignContractSize,
    minLots: lotsOrNull(d.minLots),
    maxLots: lotsOrNull(d.maxLots),
    forceMinimum: d.forceMinimum,
    direction: d.direction,
    symbols: {
      pairs: pairsOf(d.pairs),
      sourcePrefix: d.sourcePrefix,
      sourceSuffix: d.sourceSuffix,
      followerPrefix: d.followerPrefix,
      followerSuffix: d.followerSuffix,
    },
    allowedSymbols: d.allowedSymbols.trim(),
    blockedSymbols: d.blockedSymbols.trim(),
    stops: d.stopsMode === "fixed" ? { mode: "fixed", slPoints: num(d.slPoints), tpPoints: num(d.tpPoints) } : { mode: d.stopsMode },
    copyPendingOrders: d.copyPendingOrders,
    copyPartialCloses: d.copyPartialCloses,
    copyExistingPositions: d.copyExistingPositions,
    maxDelaySeconds: num(d.maxDelaySeconds),
    maxDeviationPoints: num(d.maxDeviationPoints),
    equityFloor: riskOf(d.equityFloorAction, d.equityFloorAmount),
    dailyLossLimit: riskOf(d.dailyLossAction, d.dailyLossAmount),
    closeOnly: d.closeOnly,
  };
}

export function linkInputOf(d: LinkDraft): CopyLinkBodyInput {
  return {
    name: d.name,
    enabled: d.enabled,
    source: { platformId: d.sourcePlatformId, login: d.sourceLogin.trim() },
    followers: d.followers.map(followerInputOf),
  };
}

/** Errors by form field: `name`, `source`, `followers`, and `followers.<i>.<draft field>`. */
export type FieldErrors = Record<string, string>;

const FOLLOWER_FIELD: Record<string, keyof FollowerDraft> = {
  account: "login",
  volume: "volumeValue",
  symbols: "pairs",
  stops: "slPoints",
  equityFloor: "equityFloorAmount",
  dailyLossLimit: "dailyLossAmount",
};
const SYMBOL_FIELDS = new Set(["sourcePrefix", "sourceSuffix", "followerPrefix", "followerSuffix"]);

/** The form field an issue path names (`body.followers.0.volume.multiplier` → `followers.0.volumeValue`). */
export function fieldOf(path: readonly (string | number)[]): string {
  const [head, ...rest] = path[0] === "body" ? path.slice(1) : path;
  if (head === "source") return rest[0] === "platformId" ? "sourcePlatformId" : "sourceLogin";
  if (head !== "followers" || rest.length < 2) return String(head ?? "form");
  const [index, field, sub] = rest;
  if (field === "account" && sub === "platformId") return `followers.${index}.platformId`;
  if (field === "symbols" && typeof sub === "string" && SYMBOL_FIELDS.has(sub)) return `followers.${index}.${sub}`;
  if (field === "stops" && sub === "tpPoints") return `followers.${index}.tpPoints`;
  const name = FOLLOWER_FIELD[String(field)] ?? String(field);
  return `followers.${index}.${name}`;
}

export function errorsOf(issues: readonly { path: readonly (string | number)[]; message: string }[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) errors[fieldOf(issue.path)] ??= issue.message;
  return errors;
}

/** The `issues` of an API error body (path as "body.a.0.b"), or none. */
export function apiIssuesOf(body: string): { path: (string | number)[]; message: string }[] {
  try {
    const parsed = JSON.parse(body) as { issues?: { path: string; message: string }[] };
    return (parsed.issues ?? []).map((i) => ({ path: i.path.split(".").map((p) => (/^\d+$/.test(p) ? Number(p) : p)), message: i.message }));
  } catch {
    return [];
  }
}
