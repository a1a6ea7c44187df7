/**
 * The links form's draft (app/features/trades-copier/draft.ts): every follower setting survives
 * the trip contract → form → contract unchanged, and each issue path lands on the field that shows it.
 */
import { describe, expect, it } from "vitest";
import { FollowerSettingsSchema, type FollowerSettings } from "../../core/schemas/copier.ts";
import { apiIssuesOf, errorsOf, fieldOf, followerDraftOf, followerInputOf } from "../../app/features/trades-copier/draft.ts";

const PLATFORM = "7d7c2d2e-52d4-4c2a-9a3e-0b2b1c7e5f10";

const everything: FollowerSettings = FollowerSettingsSchema.parse({
  account: { platformId: PLATFORM, login: "300001" },
  enabled: false,
  volume: { mode: "riskPercent", percent: 1.5 },
  alignContractSize: false,
  minLots: "0.01",
  maxLots: "5",
  forceMinimum: true,
  direction: "reverse",
  symbols: {
    pairs: [
      { source: "XAUUSD", follower: "GOLD" },
      { source: "US30", follower: "DJ30.cash" },
    ],
    sourcePrefix: "",
    sourceSuffix: ".r",
    followerPrefix: "m.",
    followerSuffix: "",
  },
  allowedSymbols: "EUR*,XAU*",
  blockedSymbols: "*JPY",
  stops: { mode: "fixed", slPoints: 200, tpPoints: null },
  copyPendingOrders: false,
  copyPartialCloses: false,
  copyExistingPositions: true,
  maxDelaySeconds: 30,
  maxDeviationPoints: 15,
  equityFloor: { amount: 1000, action: "closeAndSuspend" },
  dailyLossLimit: { amount: 250.5, action: "suspend" },
  closeOnly: true,
});

describe("the links form's draft", () => {
  it("keeps every setting of a follower through the form", () => {
    expect(FollowerSettingsSchema.parse(followerInputOf(followerDraftOf(everything)))).toEqual(everything);
    for (const volume of [
      { mode: "same" },
      { mode: "multiplier", multiplier: 2 },
      { mode: "fixed", lots: "0.25" },
      { mode: "equity", factor: 1 },
      { mode: "balance", factor: 0.5 },
    ] as const) {
      const settings = FollowerSettingsSchema.parse({ account: everything.account, volume });
      expect(FollowerSettingsSchema.parse(followerInputOf(followerDraftOf(settings)))).toEqual(settings);
    }
  });

  it("an empty number field is none, a word in it is refused by the schema's own message", () => {
    const draft = { ...followerDraftOf(everything), maxDelaySeconds: "", volumeMode: "multiplier" as const, volumeValue: "two" };
    const parsed = FollowerSettingsSchema.safeParse(followerInputOf(draft));
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((i) => [fieldOf(["followers", 0, ...i.path.map(String)]), i.message])).toEqual([
      ["followers.0.volumeValue", "The multiplier must be a number"],
    ]);
  });

  it("maps the API's issue paths onto the form's fields", () => {
    const body = JSON.stringify({
      issues: [
        { path: "body.followers.1.account", message: "No account 9 on X" },
        { path: "body.source", message: "No account 1 on Y" },
        { path: "body.followers.0.volume.multiplier", message: "too big" },
        { path: "body.followers.0.symbols.followerSuffix", message: "too long" },
        { path: "body.followers.0.stops.tpPoints", message: "whole points" },
        { path: "body.followers.0.dailyLossLimit.amount", message: "more than zero" },
        { path: "body.name", message: "Give the link a name" },
      ],
    });
    expect(errorsOf(apiIssuesOf(body))).toEqual({
      "followers.1.login": "No account 9 on X",
      sourceLogin: "No account 1 on Y",
      "followers.0.volumeValue": "too big",
      "followers.0.followerSuffix": "too long",
      "followers.0.tpPoints": "whole points",
      "followers.0.dailyLossAmount": "more than zero",
      name: "Give the link a name",
    });
    expect(apiIssuesOf("not json")).toEqual([]);
  });
});
