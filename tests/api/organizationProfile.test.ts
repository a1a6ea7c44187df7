/**
 * The organization profile (docs/administration.md "Organization profile") through the real
 * server: every member reads it; administrators change its name and currency, audited in the same
 * transaction, and its default time zone; the blotter's exposure rates follow the new currency at once; members without the
 * settings permission, API clients, bad input and other organizations change nothing.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ExposureRates } from "../../core/schemas/tradesBlotter.ts";
import { API_RESOURCE } from "../../server/config.ts";
import { auditEvents, organizations } from "../../server/db/schema.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, rowCounts, signUp } from "./support/fixtures.ts";

describeDb("organization profile", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const admin = newPerson("Ada Admin");
  const dealer = newPerson("Dan Dealer");
  const other = newPerson("Otto Other");
  let org: string;
  let otherOrg: string;

  const as = async (person: Person, organizationId = org) => apiHeaders(await tokens.mint(person), organizationId);
  const get = async (url: string, person = admin, organizationId = org) => t.app.inject({ url, headers: await as(person, organizationId) });
  const patch = async (body: unknown, headers?: Record<string, string>) =>
    t.app.inject({ method: "PATCH", url: "/api/organization", headers: headers ?? (await as(admin)), payload: body as object });
  const stored = async (id = org) => {
    const [row] = await t.ctx.database.db
      .select({ name: organizations.name, currency: organizations.currency, timeZone: organizations.timeZone })
      .from(organizations)
      .where(eq(organizations.id, id));
    return row;
  };
  const audits = () =>
    t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.organizationId, org), eq(auditEvents.action, "organization.updated")));

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, admin);
    otherOrg = await signUp(t, tokens, other);
    // A dealer: writes almost everything, but holds no settings permission.
    await addMember(t.ctx, org, dealer, {
      [`Module.users.${org}`]: "read,write,money",
      [`Module.tradePlatforms.${org}`]: "read,write",
      [`Module.tradesBlotter.${org}`]: "read",
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("every member reads the profile: name, currency (USD by default), when and by whom it was created", async () => {
    for (const person of [admin, dealer]) {
      const res = await get("/api/organization", person);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ id: org, currency: "USD", createdBy: { sub: admin.sub, name: admin.name } });
      // Not the creator's e-mail: only those who manage members see members' addresses.
      expect(res.body).not.toContain(admin.email);
      expect(new Date(res.json().createdAt).getTime()).toBeGreaterThan(Date.now() - 600_000);
    }
  });

  it("an administrator changes name and currency: audited, and the exposure rates are in the new currency at once", async () => {
    // A connected simulated server on the blotter, so the rates are converted, not only labelled.
    const created = await t.app.inject({
      method: "POST",
      url: "/api/tradePlatforms",
      headers: await as(admin),
      payload: { type: "MT5", name: "Sim", timeZone: "Europe/Athens", connection: { kind: "simulated", accounts: 5, tradeRate: 0, seed: 7 } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const platformId = created.json<{ id: string }>().id;
    const assigned = await t.app.inject({
      method: "POST",
      url: "/api/tradePlatforms/assign-application",
      headers: await as(admin),
      payload: { app: "tradesBlotter", platformIds: [platformId] },
    });
    expect(assigned.statusCode, assigned.body).toBe(200);
    const rates = async (): Promise<ExposureRates> => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const res = await get("/api/tradesBlotter/exposure-rates", dealer);
        expect(res.statusCode, res.body).toBe(200);
        const body = res.json<ExposureRates>();
        if (body.symbols.length > 0 || Date.now() > deadline) return body;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const eurusd = (r: ExposureRates) => r.symbols.find((s) => s.symbol === "EURUSD");
    const before = await rates();
    expect(before.currency).toBe("USD");
    expect(eurusd(before)?.rate).toBe(1);
    const previousName = (await stored())!.name;

    const res = await patch({ name: "  Acme Brokers Ltd  ", currency: "EUR" });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: org, name: "Acme Brokers Ltd", currency: "EUR", createdBy: { sub: admin.sub } });
    expect(await stored()).toEqual({ name: "Acme Brokers Ltd", currency: "EUR", timeZone: "UTC" });
    expect((await get("/api/organization", dealer)).json()).toMatchObject({ name: "Acme Brokers Ltd", currency: "EUR" });
    // The switcher's list says the new name.
    const list = (await get("/api/organizations")).json<{ id: string; name: string }[]>();
    expect(list.find((o) => o.id === org)?.name).toBe("Acme Brokers Ltd");

    const [audit, ...more] = await audits();
    expect(more).toHaveLength(0);
    expect(audit).toMatchObject({
      actorSub: admin.sub,
      actorName: admin.name,
      targetType: "organization",
      targetId: org,
      before: { name: previousName, currency: "USD" },
      after: { name: "Acme Brokers Ltd", currency: "EUR" },
    });

    // The rates: EUR now, USD-quoted symbols converted through EURUSD (no restart, no cache).
    const after = await rates();
    expect(after.currency).toBe("EUR");
    expect(eurusd(after)?.quoteCurrency).toBe("USD");
    expect(eurusd(after)?.rate).not.toBe(1);
    expect(eurusd(after)?.rate).toBeGreaterThan(0);

    // Only the currency: the name stays; saving what is there writes and audits nothing.
    const back = await patch({ currency: "USD" });
    expect(back.json()).toMatchObject({ name: "Acme Brokers Ltd", currency: "USD" });
    expect((await audits()).at(-1)).toMatchObject({ before: { currency: "EUR" }, after: { currency: "USD" } });
    const count = (await audits()).length;
    expect((await patch({ name: "Acme Brokers Ltd", currency: "USD" })).statusCode).toBe(200);
    expect(await audits()).toHaveLength(count);
    expect((await rates()).currency).toBe("USD");
  });

  it("an administrator sets the default time zone (UTC until then): audited, spelled as Intl spells it, in the switcher's list for every member", async () => {
    expect((await get("/api/organization", dealer)).json()).toMatchObject({ timeZone: "UTC" });
    expect((await get("/api/organizations", dealer)).json<{ id: string; timeZone: string }[]>().find((o) => o.id === org)?.timeZone).toBe("UTC");
    const count = (await audits()).length;

    const res = await patch({ timeZone: "europe/athens" });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: org, timeZone: "Europe/Athens" });
    const [row] = await t.ctx.database.db.select({ timeZone: organizations.timeZone }).from(organizations).where(eq(organizations.id, org));
    expect(row?.timeZone).toBe("Europe/Athens");
    expect((await get("/api/organization", dealer)).json()).toMatchObject({ timeZone: "Europe/Athens" });
    // The app applies it from the organizations list (the members without a zone of their own).
    expect((await get("/api/organizations", dealer)).json<{ id: string; timeZone: string }[]>().find((o) => o.id === org)?.timeZone).toBe("Europe/Athens");
    const changes = await audits();
    expect(changes).toHaveLength(count + 1);
    expect(changes.at(-1)).toMatchObject({ actorSub: admin.sub, before: { timeZone: "UTC" }, after: { timeZone: "Europe/Athens" } });
    // The same zone again: nothing written, nothing audited.
    expect((await patch({ timeZone: "Europe/Athens" })).statusCode).toBe(200);
    expect(await audits()).toHaveLength(count + 1);
    // Another organization keeps its own.
    expect((await get("/api/organization", other, otherOrg)).json()).toMatchObject({ timeZone: "UTC" });
    expect((await patch({ timeZone: "UTC" })).json()).toMatchObject({ timeZone: "UTC" });
  });

  it("a member without the settings permission reads it but gets 403 changing it, and nothing changes", async () => {
    const before = await stored();
    const counts = await rowCounts(t.ctx);
    for (const body of [{ name: "Dealer's Shop", currency: "JPY" }, { timeZone: "Asia/Tokyo" }]) {
      const res = await patch(body, await as(dealer));
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toBeTruthy();
    }
    expect(await stored()).toEqual(before);
    expect(await rowCounts(t.ctx)).toEqual(counts);
  });

  it("an API client gets 403 changing it, even one given the settings permission", async () => {
    const created = await t.app.inject({
      method: "POST",
      url: "/api/organization/api-clients",
      headers: await as(admin),
      payload: { name: "Reporting", permissions: { settings: ["read", "write"], tradesBlotter: ["read"] } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { clientId, clientSecret } = created.json<{ clientId: string; clientSecret: string }>();
    const token = await t.app.inject({
      method: "POST",
      url: "/oidc/token",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString("base64")}`,
      },
      payload: new URLSearchParams({ grant_type: "client_credentials", resource: API_RESOURCE }).toString(),
    });
    expect(token.statusCode, token.body).toBe(200);
    const clientHeaders = apiHeaders(token.json().access_token as string, org);
    const before = await stored();
    const res = await patch({ currency: "GBP" }, clientHeaders);
    expect(res.statusCode, res.body).toBe(403);
    expect(await stored()).toEqual(before);
  });

  it("bad input: 400 with a readable message naming the field, nothing written", async () => {
    const before = await stored();
    const counts = await rowCounts(t.ctx);
    for (const [body, fragment] of [
      [{ currency: "XYZ" }, '"XYZ" is not a currency Toolbox offers. Choose one of USD, EUR, GBP'],
      [{ currency: "eur" }, '"eur" is not a currency Toolbox offers'],
      [{ currency: 978 }, "Currency must be text"],
      [{ name: "   " }, "Enter a name for the organization."],
      [{ name: "x".repeat(101) }, "Use at most 100 characters."],
      [{ name: "Bad\u0007name" }, "Remove the control characters."],
      [{ name: "Fine", currency: "BTC" }, '"BTC" is not a currency Toolbox offers'],
      [{}, "Give the name, the currency or the time zone to change."],
      [{ name: "Fine", locale: "en-GB" }, "Only the name, currency and time zone can be changed here, not locale."],
      [{ timeZone: "Mars/Olympus_Mons" }, '"Mars/Olympus_Mons" is not a time zone. Use an IANA name'],
      [{ timeZone: "+02:00" }, '"+02:00" is not a time zone'],
      [{ timeZone: "" }, '"" is not a time zone'],
      [{ timeZone: 2 }, "The time zone must be text"],
      [[], "The body must be a JSON object"],
    ] as const) {
      const res = await patch(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().message, JSON.stringify(body)).toContain(fragment);
    }
    expect((await patch({ currency: "XYZ" })).json().message).toMatch(/^Currency: /);
    expect((await patch({ timeZone: "Nowhere" })).json().message).toMatch(/^Time zone: /);
    expect(await stored()).toEqual(before);
    expect(await rowCounts(t.ctx)).toEqual(counts);
  });

  it("another organization's id: 404 for reading and changing, nothing changes", async () => {
    const before = await stored();
    const foreign = await get("/api/organization", other, org);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().message).toBe("You are not a member of this organization");
    expect(JSON.stringify(foreign.json())).not.toContain(before!.name);
    expect((await patch({ name: "Taken over", currency: "CHF" }, await as(other, org))).statusCode).toBe(404);
    expect(await stored()).toEqual(before);
    // Their own profile is theirs alone.
    expect((await get("/api/organization", other, otherOrg)).json()).toMatchObject({ id: otherOrg, currency: "USD", createdBy: { sub: other.sub } });
  });
});
