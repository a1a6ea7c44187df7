import { beforeEach, describe, expect, it } from "vitest";
import { PROFILE_STORAGE_KEY, chooseOrganization, resetProfile, useProfileStore } from "~/profile/store";
import { currentOrganizationId, onOrganizationChange, selectCurrentOrganization, selectTradePlatforms } from "~/profile/selectors";
import type { Organization, TradePlatform } from "~/profile/types";

const org = (id: string, name = id): Organization => ({ id, name, createdAt: "2024-01-01T00:00:00.000Z", isAdmin: false });
const platform = (id: string, organizationId: string, enable = true): TradePlatform => ({ id, organizationId, type: "MT5", name: id, enable });
const store = () => useProfileStore.getState();
const persisted = () => JSON.parse(localStorage.getItem(PROFILE_STORAGE_KEY) ?? "null") as { state: Record<string, unknown> } | null;

describe("profile store (docs/requirements.md#r-entities, docs/requirements.md#r-states)", () => {
  beforeEach(() => {
    localStorage.clear();
    resetProfile();
  });

  it("persists claims, current organization, organizations and trade platforms only", () => {
    store().setClaimsAndOrganizations([{ type: "organization:admin", value: "a" }], [org("a")]);
    store().setTradePlatforms([platform("p1", "a")]);
    store().setAppConfig({ user: { sub: "s", email: null, name: null }, organizationCount: 1, serverTime: "2024-01-01T00:00:00Z" });
    store().setPreflightError("boom");
    store().setPreflightDone(true);
    const saved = persisted()!.state;
    expect(Object.keys(saved).sort()).toEqual(["claims", "currentOrganizationId", "organizations", "tradePlatforms"]);
    expect(saved).toEqual({
      claims: [{ type: "organization:admin", value: "a" }],
      currentOrganizationId: "a",
      organizations: [org("a")],
      tradePlatforms: [platform("p1", "a")],
    });
  });

  it("restores the persisted fields, never appConfig or the done flag", async () => {
    localStorage.setItem(
      PROFILE_STORAGE_KEY,
      JSON.stringify({ version: 1, state: { currentOrganizationId: "b", organizations: [org("b")], preflightDone: true, appConfig: { x: 1 } } }),
    );
    await useProfileStore.persist.rehydrate();
    expect(store().currentOrganizationId).toBe("b");
    expect(store().organizations).toEqual([org("b")]);
    expect(store().preflightDone).toBe(false);
    expect(store().appConfig).toBeNull();
  });

  it("chooses the first organization when none is current", () => {
    store().setClaimsAndOrganizations([], [org("a"), org("b")]);
    expect(store().currentOrganizationId).toBe("a");
  });

  it("keeps the current organization while it exists, otherwise falls back to the first", () => {
    store().setClaimsAndOrganizations([], [org("a"), org("b")]);
    store().setCurrentOrganization("b");
    store().setClaimsAndOrganizations([], [org("a"), org("b"), org("c")]);
    expect(store().currentOrganizationId).toBe("b");
    store().setClaimsAndOrganizations([], [org("c"), org("a")]);
    expect(store().currentOrganizationId).toBe("c");
    store().setClaimsAndOrganizations([], []);
    expect(store().currentOrganizationId).toBeNull();
  });

  it("prefers the organization just created for a new person when none is current", () => {
    expect(chooseOrganization(null, [org("a"), org("new")], "new")).toBe("new");
    expect(chooseOrganization("a", [org("a"), org("new")], "new")).toBe("a");
    expect(chooseOrganization(null, [org("a")], "missing")).toBe("a");
  });

  it("ignores a switch to an organization the person does not belong to", () => {
    store().setClaimsAndOrganizations([], [org("a")]);
    store().setCurrentOrganization("zzz");
    expect(store().currentOrganizationId).toBe("a");
  });

  it("shows only the current organization's trade platforms", () => {
    store().setClaimsAndOrganizations([], [org("a"), org("b")]);
    store().setTradePlatforms([platform("p1", "a"), platform("p2", "b"), platform("p3", "a")]);
    expect(selectTradePlatforms(store()).map((p) => p.id)).toEqual(["p1", "p3"]);
    store().setCurrentOrganization("b");
    expect(selectTradePlatforms(store()).map((p) => p.id)).toEqual(["p2"]);
    expect(selectCurrentOrganization(store())?.id).toBe("b");
  });

  it("removes a trade platform and sets its enable flag locally", () => {
    store().setTradePlatforms([platform("p1", "a"), platform("p2", "a", false)]);
    store().setTradePlatformEnable("p2", true);
    store().setTradePlatformEnable("p1", false);
    expect(store().tradePlatforms.map((p) => [p.id, p.enable])).toEqual([
      ["p1", false],
      ["p2", true],
    ]);
    store().removeTradePlatform("p1");
    expect(store().tradePlatforms.map((p) => p.id)).toEqual(["p2"]);
    expect(persisted()!.state.tradePlatforms).toEqual([platform("p2", "a", true)]);
  });

  it("adds a created organization once", () => {
    store().addOrganization(org("n", "New"));
    store().addOrganization(org("n", "New"));
    expect(store().organizations).toEqual([org("n", "New")]);
  });

  it("reads the current organization one way outside React too: now, and on every change (not on other changes)", () => {
    store().setClaimsAndOrganizations([], [org("a"), org("b")]);
    expect(currentOrganizationId()).toBe("a");
    const seen: (string | null)[] = [];
    const stop = onOrganizationChange((id) => seen.push(id));
    store().setTradePlatforms([platform("p1", "a")]);
    store().setCurrentOrganization("b");
    store().setCurrentOrganization("b");
    stop();
    store().setCurrentOrganization("a");
    expect(seen).toEqual(["b"]);
    expect(currentOrganizationId()).toBe("a");
  });
});
