/**
 * Quotas per organization and per person (server/quotas.ts): over one, 422 with a message that
 * names the limit; counted under a lock, so concurrent requests cannot both take the last place
 * (meaningful on PostgreSQL; PGlite runs one transaction at a time anyway).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.ts";
import { QUOTA_DEFAULTS } from "../../server/quotas.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

describe("quota configuration", () => {
  it("has defaults, takes whole numbers, and refuses anything else with the variable's name", () => {
    expect(loadConfig({}).quotas).toEqual(QUOTA_DEFAULTS);
    expect(loadConfig({ TOOLBOX_MAX_SIMULATED_PLATFORMS: "0", TOOLBOX_MAX_PREFERENCE_KEYS: "12" }).quotas).toMatchObject({
      simulatedPlatforms: 0,
      preferenceKeys: 12,
    });
    expect(() => loadConfig({ TOOLBOX_MAX_SIMULATED_ACCOUNTS: "-1" })).toThrow(
      /TOOLBOX_MAX_SIMULATED_ACCOUNTS: TOOLBOX_MAX_SIMULATED_ACCOUNTS cannot be negative/,
    );
    expect(() => loadConfig({ TOOLBOX_MAX_ORGANIZATIONS_PER_PERSON: "many" })).toThrow(/TOOLBOX_MAX_ORGANIZATIONS_PER_PERSON must be a whole number/);
    expect(() => loadConfig({ TOOLBOX_MAX_SIMULATED_TRADE_RATE: "2.5" })).toThrow(/TOOLBOX_MAX_SIMULATED_TRADE_RATE must be a whole number/);
  });

  it("reads the customers quota, the live-stream caps and the hourly e-mail limit, with their defaults", () => {
    const defaults = loadConfig({});
    expect(defaults.quotas.customers).toBe(250_000);
    expect(defaults.liveStreams).toEqual({ perPerson: 16, perOrganization: 200 });
    expect(defaults.notifications.maxEmailsPerHour).toBe(200);
    const set = loadConfig({
      TOOLBOX_MAX_CUSTOMERS: "10",
      TOOLBOX_MAX_LIVE_STREAMS_PER_PERSON: "4",
      TOOLBOX_MAX_LIVE_STREAMS_PER_ORGANIZATION: "40",
      NOTIFICATIONS_MAX_EMAILS_PER_HOUR: "0",
    });
    expect([set.quotas.customers, set.liveStreams, set.notifications.maxEmailsPerHour]).toEqual([10, { perPerson: 4, perOrganization: 40 }, 0]);
    expect(() => loadConfig({ TOOLBOX_MAX_LIVE_STREAMS_PER_PERSON: "0" })).toThrow(/TOOLBOX_MAX_LIVE_STREAMS_PER_PERSON must be at least 1/);
    expect(() => loadConfig({ TOOLBOX_MAX_CUSTOMERS: "lots" })).toThrow(/TOOLBOX_MAX_CUSTOMERS must be a whole number/);
  });
});

describeDb("quotas", () => {
  let t: TestApp;
  let tokens: TokenFactory;

  beforeAll(async () => {
    t = await createTestApp({
      TOOLBOX_MAX_SIMULATED_PLATFORMS: "2",
      TOOLBOX_MAX_SIMULATED_ACCOUNTS: "100",
      TOOLBOX_MAX_SIMULATED_TRADE_RATE: "10",
      TOOLBOX_MAX_ORGANIZATIONS_PER_PERSON: "3",
      TOOLBOX_MAX_PREFERENCE_KEYS: "3",
    });
    tokens = await tokenFactory(t.ctx);
  });
  afterAll(() => t?.close());

  const call = async (person: Person, org: string | undefined, method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE", url: string, payload?: object) => {
    const res = await t.app.inject({ method, url, headers: apiHeaders(await tokens.mint(person), org), ...(payload ? { payload } : {}) });
    return { status: res.statusCode, body: res.body ? res.json() : {} };
  };
  const platform = (name: string, connection: { accounts?: number; tradeRate?: number } = {}) => ({
    type: "MT5",
    name,
    timeZone: "UTC",
    connection: { kind: "simulated", accounts: 0, tradeRate: 0, seed: 1, ...connection },
  });
  const owner = async (name: string) => {
    const person = newPerson(name);
    return { person, org: await signUp(t, tokens, person) };
  };

  it("simulated platforms per organization: the next one is refused, naming the limit; another organization is not concerned", async () => {
    const { person, org } = await owner("Ada");
    expect((await call(person, org, "POST", "/api/tradePlatforms", platform("One"))).status).toBe(201);
    const second = await call(person, org, "POST", "/api/tradePlatforms", platform("Two"));
    expect(second.status).toBe(201);
    const third = await call(person, org, "POST", "/api/tradePlatforms", platform("Three"));
    expect(third.status).toBe(422);
    expect(third.body.message).toBe("This organization already has 2 simulated platforms, the most allowed (TOOLBOX_MAX_SIMULATED_PLATFORMS).");
    const list = await call(person, undefined, "GET", "/api/tradePlatforms");
    expect((list.body as unknown as { name: string }[]).map((p) => p.name).sort()).toEqual(["One", "Two"]);

    const other = await owner("Bea");
    expect((await call(other.person, other.org, "POST", "/api/tradePlatforms", platform("Three"))).status).toBe(201);

    // Deleting one makes room again.
    expect((await call(person, org, "DELETE", `/api/tradePlatforms/${second.body.id}`, { confirmName: "Two" })).status).toBe(204);
    expect((await call(person, org, "POST", "/api/tradePlatforms", platform("Three"))).status).toBe(201);
  });

  it("simulated platforms per organization: of concurrent creations only as many as there is room for pass", async () => {
    const { person, org } = await owner("Cyd");
    expect((await call(person, org, "POST", "/api/tradePlatforms", platform("First"))).status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => call(person, org, "POST", "/api/tradePlatforms", platform(`Racer ${i}`))));
    expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array(7).fill(422)]);
    const list = (await call(person, undefined, "GET", "/api/tradePlatforms")).body as unknown as { organizationId: string }[];
    expect(list.filter((p) => p.organizationId === org)).toHaveLength(2);
  });

  it("simulated accounts of an organization in total, on creation and on change", async () => {
    const { person, org } = await owner("Dan");
    const first = await call(person, org, "POST", "/api/tradePlatforms", platform("Sixty", { accounts: 60 }));
    expect(first.status).toBe(201);
    const over = await call(person, org, "POST", "/api/tradePlatforms", platform("Fifty", { accounts: 50 }));
    expect(over.status).toBe(422);
    expect(over.body.message).toBe(
      "This organization's simulated platforms would hold 110 accounts together; at most 100 are allowed (TOOLBOX_MAX_SIMULATED_ACCOUNTS).",
    );
    expect((await call(person, org, "POST", "/api/tradePlatforms", platform("Forty", { accounts: 40 }))).status).toBe(201);
    const grow = await call(person, org, "PATCH", `/api/tradePlatforms/${first.body.id}`, { connection: { kind: "simulated", accounts: 61 } });
    expect(grow.status).toBe(422);
    expect(grow.body.message).toMatch(/would hold 101 accounts together; at most 100 are allowed \(TOOLBOX_MAX_SIMULATED_ACCOUNTS\)/);
    expect((await call(person, org, "GET", `/api/tradePlatforms/${first.body.id}`)).body.connection).toMatchObject({ accounts: 60 });
    const shrink = await call(person, org, "PATCH", `/api/tradePlatforms/${first.body.id}`, { connection: { kind: "simulated", accounts: 10 } });
    expect(shrink.status).toBe(200);
  });

  it("simulated trade rate of an organization in total", async () => {
    const { person, org } = await owner("Eli");
    const first = await call(person, org, "POST", "/api/tradePlatforms", platform("Busy", { tradeRate: 6 }));
    expect(first.status).toBe(201);
    const over = await call(person, org, "POST", "/api/tradePlatforms", platform("Busier", { tradeRate: 5 }));
    expect(over.status).toBe(422);
    expect(over.body.message).toBe(
      "This organization's simulated platforms would trade 11 times a second together; at most 10 are allowed (TOOLBOX_MAX_SIMULATED_TRADE_RATE).",
    );
    expect((await call(person, org, "POST", "/api/tradePlatforms", platform("Calm", { tradeRate: 4 }))).status).toBe(201);
    const faster = await call(person, org, "PATCH", `/api/tradePlatforms/${first.body.id}`, { connection: { kind: "simulated", tradeRate: 7 } });
    expect(faster.status).toBe(422);
    expect(faster.body.message).toMatch(/TOOLBOX_MAX_SIMULATED_TRADE_RATE/);
    // Other changes to a platform are not held back by the quotas.
    expect((await call(person, org, "PATCH", `/api/tradePlatforms/${first.body.id}`, { name: "Renamed" })).status).toBe(200);
  });

  it("organizations a person may create: their first (made at sign-in) counts; concurrent requests cannot pass the limit", async () => {
    const { person } = await owner("Fay");
    const create = (name: string) => call(person, undefined, "POST", "/api/organizations", { name });
    expect((await create("Second")).status).toBe(201);
    expect((await create("Third")).status).toBe(201);
    const fourth = await create("Fourth");
    expect(fourth.status).toBe(422);
    expect(fourth.body.message).toBe("You have already created 3 organizations, the most allowed (TOOLBOX_MAX_ORGANIZATIONS_PER_PERSON).");

    // Being a member of others' organizations does not count.
    const other = await owner("Gus");
    await addMember(t.ctx, other.org, person);
    expect((await call(person, undefined, "GET", "/api/organizations")).body).toHaveLength(4);

    const racer = await owner("Hal");
    const answers = await Promise.all(["A", "B", "C", "D", "E"].map((n) => call(racer.person, undefined, "POST", "/api/organizations", { name: n })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 422, 422, 422]);
    expect((await call(racer.person, undefined, "GET", "/api/organizations")).body).toHaveLength(3);
  });

  it("preference keys per member: a new key past the limit is refused; changing or clearing one is not; concurrent new keys cannot pass it", async () => {
    const { person, org } = await owner("Ivy");
    const put = (p: Person, key: string, value: unknown) => call(p, org, "PUT", `/api/preferences/${key}`, { value });
    for (const key of ["a", "b", "c"]) expect((await put(person, key, { v: key })).status).toBe(200);
    const fourth = await put(person, "d", 1);
    expect(fourth.status).toBe(422);
    expect(fourth.body.message).toBe(
      "You already keep 3 preferences in this organization, the most allowed (TOOLBOX_MAX_PREFERENCE_KEYS). Clear one first (set it to null).",
    );
    expect((await put(person, "a", "changed")).status).toBe(200);
    expect((await put(person, "b", null)).status).toBe(200);
    expect((await call(person, org, "GET", "/api/preferences/b")).body).toEqual({ key: "b", value: null, updatedAt: null });
    expect((await put(person, "d", 1)).status).toBe(200);

    // Per member: another member of the organization has their own.
    const colleague = newPerson("Jo");
    await addMember(t.ctx, org, colleague);
    await put(colleague, "x", 1);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => put(colleague, `k${i}`, i)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, ...Array(6).fill(422)]);
  });
});
