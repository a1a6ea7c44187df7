/**
 * The CA certificate field of a real trade server ("Your server"): a pasted private key — alone,
 * or hidden between certificates — is refused with a 400 naming the field, on create, on change
 * and on "Test connection"; it is never stored, audited, logged or echoed back.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CA_CERTIFICATE_HOLDS_KEY } from "../../core/schemas/platform.ts";
import { selfSignedCertificate, type TestCertificate } from "../../server/protocolServers/certificates.ts";
import { describeDb } from "../helpers/db.ts";
import { apiHeaders, newPerson, tokenFactory } from "../helpers/tokens.ts";
import { startPlatformsApp, type PlatformsApp } from "./platformsHarness.ts";
import { signUp } from "./support/fixtures.ts";

describeDb("a CA certificate field holding a private key", () => {
  let t: PlatformsApp;
  let tls: TestCertificate;
  let headers: Record<string, string>;
  const dealer = newPerson("Dealer");

  beforeAll(async () => {
    tls = await selfSignedCertificate();
    t = await startPlatformsApp();
    const tokens = await tokenFactory(t.ctx);
    const org = await signUp(t, tokens, dealer);
    headers = apiHeaders(await tokens.mint(dealer), org);
  });
  afterAll(async () => {
    await t?.close();
    await t?.drop();
  });

  /** The key's base64 body, to look for anywhere it must not be. */
  const keyBody = () =>
    tls.key
      .split("\n")
      .filter((l) => l && !l.startsWith("-----"))
      .slice(0, 2)
      .join("");

  const withKey = () => [
    tls.key,
    `${tls.ca}\n${tls.key}`,
    `${tls.ca}\n${tls.key}\n${tls.ca}`,
    `${tls.ca}\n${tls.key.replace(/-----(BEGIN|END) PRIVATE KEY-----/g, "-----$1 RSA PRIVATE KEY-----")}\n${tls.ca}`,
    `${tls.ca}\n-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHzBJBgkqhkiG9w0BBQ0wPDAbBgkqhkiG9w0BBQwwDgQI\n-----END ENCRYPTED PRIVATE KEY-----\n${tls.ca}`,
  ];

  const connections = (caCertificate: string) => [
    { type: "MT5", connection: { kind: "mt5WebApi", address: "mt5.example.com:443", login: "1000", password: "Manager-Pass-1", caCertificate } },
    { type: "MT4", connection: { kind: "mt4Gateway", address: "mt4.example.com:443", login: "1000", password: "Manager-Pass-1", caCertificate } },
    { type: "MatchTrader", connection: { kind: "matchTraderApi", apiUrl: "https://broker-api.example.com", apiKey: "api-key-0123456789", caCertificate } },
  ];

  function expectRefused(res: { statusCode: number; body: string; json(): unknown }) {
    expect(res.statusCode, res.body).toBe(400);
    const body = res.json() as { issues: { path: string; message: string }[] };
    expect(body.issues).toEqual([{ path: expect.stringMatching(/caCertificate$/), message: CA_CERTIFICATE_HOLDS_KEY }]);
    expect(res.body).not.toContain("PRIVATE KEY-----");
  }

  async function nothingStored() {
    const rows = await t.ctx.database.db.execute<{ n: number }>(sql`select
      (select count(*)::int from trade_platforms where connection::text like '%PRIVATE KEY%')
      + (select count(*)::int from audit_events where coalesce(before::text, '') || coalesce(after::text, '') like '%PRIVATE KEY%') as n`);
    const n = (Array.isArray(rows) ? rows : (rows as { rows: { n: number }[] }).rows)[0]!.n;
    expect(n).toBe(0);
    const everything = [...t.logs, ...t.bodies].join("\n");
    expect(everything).not.toContain(keyBody());
    expect(everything).not.toContain("PRIVATE KEY-----");
  }

  it("refuses it when a platform is created or its connection tested, and stores nothing", async () => {
    for (const pem of withKey())
      for (const body of connections(pem)) {
        expectRefused(
          await t.call({ method: "POST", url: "/api/tradePlatforms", headers, payload: { ...body, name: `Server ${body.type}`, timeZone: "UTC" } }),
        );
        expectRefused(await t.call({ method: "POST", url: "/api/tradePlatforms/test-connection", headers, payload: body }));
      }
    const list = await t.call({ method: "GET", url: "/api/tradePlatforms", headers });
    expect(list.json()).toEqual([]);
    await nothingStored();
  });

  it("refuses it when a platform's connection is changed, and keeps the saved one", async () => {
    const created = await t.call({
      method: "POST",
      url: "/api/tradePlatforms",
      headers,
      payload: { type: "MT5", name: "Simulated", timeZone: "UTC", connection: { kind: "simulated", accounts: 1, tradeRate: 0 } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { id, connection } = created.json<{ id: string; connection: unknown }>();
    for (const pem of withKey()) {
      const [mt5] = connections(pem);
      expectRefused(await t.call({ method: "PATCH", url: `/api/tradePlatforms/${id}`, headers, payload: { connection: mt5!.connection } }));
    }
    expect((await t.call({ method: "GET", url: `/api/tradePlatforms/${id}`, headers })).json()).toMatchObject({ connection });
    await nothingStored();
  });

  it("still takes a certificate, or several, without a key", async () => {
    const [mt5] = connections(`${tls.ca}\n${tls.ca}`);
    const res = await t.call({ method: "POST", url: "/api/tradePlatforms/test-connection", headers, payload: mt5 });
    expect(res.statusCode, res.body).toBe(200);
  });
});
