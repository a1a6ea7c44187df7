import { afterAll, beforeAll, expect, it } from "vitest";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, addTradePlatform, grant, signUp } from "./support/fixtures.ts";

/** Rows written straight to the database (not through the API) are not connected by the running app. */
const idle = { state: "disconnected", lastError: null };

describeDb("GET /api/tradePlatforms", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
  });
  afterAll(() => t?.close());

  const list = async (person: ReturnType<typeof newPerson>) =>
    (await t.app.inject({ url: "/api/tradePlatforms", headers: apiHeaders(await tokens.mint(person)) })).json();

  it("lists the platforms of every organization of the caller, each with its organizationId — and nobody else's", async () => {
    const ada = newPerson("Ada");
    const bob = newPerson("Bob");
    const adaOrg = await signUp(t, tokens, ada);
    const bobOrg = await signUp(t, tokens, bob);
    const sharedOrg = await signUp(t, tokens, newPerson("Carol"));
    await addMember(t.ctx, sharedOrg, ada, { [`Module.tradePlatforms.${sharedOrg}`]: "read" });

    const adaMt5 = await addTradePlatform(t.ctx, adaOrg, "Ada MT5", "MT5");
    const bobMt4 = await addTradePlatform(t.ctx, bobOrg, "Bob MT4", "MT4");
    const shared = await addTradePlatform(t.ctx, sharedOrg, "Shared Match", "MatchTrader");

    const adaSees = await list(ada);
    expect(adaSees).toEqual(
      expect.arrayContaining([
        { id: adaMt5.id, organizationId: adaOrg, type: "MT5", name: "Ada MT5", enable: true, ...idle },
        { id: shared.id, organizationId: sharedOrg, type: "MatchTrader", name: "Shared Match", enable: true, ...idle },
      ]),
    );
    expect(adaSees).toHaveLength(2);

    const bobSees = await list(bob);
    expect(bobSees).toEqual([{ id: bobMt4.id, organizationId: bobOrg, type: "MT4", name: "Bob MT4", enable: true, ...idle }]);
  });

  it("leaves out the organizations where the caller may not read platforms", async () => {
    const erin = newPerson("Erin");
    const owner = newPerson("Frank");
    const org = await signUp(t, tokens, owner);
    await addMember(t.ctx, org, erin);
    const platform = await addTradePlatform(t.ctx, org, "Frank MT5", "MT5");
    expect(await list(erin)).toEqual([]);
    await grant(t.ctx, org, erin, `Module.tradePlatforms.${org}`, "read");
    expect((await list(erin)).map((p: { id: string }) => p.id)).toEqual([platform.id]);
  });

  it("is empty for a newcomer", async () => {
    const dave = newPerson("Dave");
    await signUp(t, tokens, dave);
    expect(await list(dave)).toEqual([]);
  });
});
