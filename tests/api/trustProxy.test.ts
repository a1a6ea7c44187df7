import { afterAll, expect, it } from "vitest";
import { loadConfig } from "../../server/config.ts";
import { buildApp } from "../../server/http/app.ts";
import { describeDb, openTestDatabase } from "../helpers/db.ts";
import { TEST_SECRETS_KEY } from "../helpers/testApp.ts";

/** The client address behind TRUST_PROXY: rate limits and audit rows rely on it. */
describeDb("TRUST_PROXY", () => {
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
  });

  async function ipSeen(trustProxy: string, forwardedFor: string) {
    const config = loadConfig({
      NODE_ENV: "test",
      LOG_LEVEL: "silent",
      PUBLIC_URL: "http://localhost:3000",
      TRUST_PROXY: trustProxy,
      SECRETS_KEY: TEST_SECRETS_KEY,
    });
    const database = await openTestDatabase();
    const app = await buildApp({ config, database }, { web: false, logger: false });
    app.get("/__ip", async (request) => ({ ip: request.ip }));
    closers.push(async () => {
      await app.close();
      await database.drop();
    });
    const res = await app.inject({ url: "/__ip", remoteAddress: "10.0.0.5", headers: { "x-forwarded-for": forwardedFor } });
    return res.json().ip as string;
  }

  it("ignores X-Forwarded-For by default", async () => {
    expect(await ipSeen("false", "6.6.6.6")).toBe("10.0.0.5");
  });

  it("'true' trusts one proxy: a client cannot choose its address by adding hops", async () => {
    expect(await ipSeen("true", "6.6.6.6, 203.0.113.9")).toBe("203.0.113.9");
  });

  it("refuses to trust every hop", () => {
    expect(() => loadConfig({ TRUST_PROXY: "everything" })).toThrow(/TRUST_PROXY must be/);
  });

  it("refuses what amounts to trusting every hop: blocks of every address, very wide blocks, large hop counts", () => {
    for (const value of ["0.0.0.0/0", "::/0", "10.0.0.1, 0.0.0.0/0", "0.0.0.0/1", "10.0.0.0/7", "2000::/3", "::ffff:0:0/96", "::ffff:0.0.0.0/100"])
      expect(() => loadConfig({ TRUST_PROXY: value }), value).toThrow(/trusts far more than your proxies/);
    for (const value of ["6", "10", "99", "1000"]) expect(() => loadConfig({ TRUST_PROXY: value }), value).toThrow(/proxy hops is more than any real chain/);
    for (const value of ["10.0.0.1/33", "1.2.3/8", "127.1", "10.0.0.1,,10.0.0.2", "fe80::/999"])
      expect(() => loadConfig({ TRUST_PROXY: value }), value).toThrow(/TRUST_PROXY must be/);
    // What a real deployment names still starts.
    for (const [value, parsed] of [
      ["3", 3],
      ["10.0.0.0/8", "10.0.0.0/8"],
      ["10.0.0.5, 2606:4700::/32, 2a06:98c0::/29", "10.0.0.5,2606:4700::/32,2a06:98c0::/29"],
      ["::ffff:10.0.0.0/104", "::ffff:10.0.0.0/104"],
    ] as const)
      expect(loadConfig({ TRUST_PROXY: value }).trustProxy, value).toBe(parsed);
  });

  it("believes the proxies listed by address or block", async () => {
    expect(await ipSeen("10.0.0.0/8", "6.6.6.6, 203.0.113.9")).toBe("203.0.113.9");
    expect(await ipSeen("10.0.0.5, 192.168.0.0/16", "203.0.113.9")).toBe("203.0.113.9");
    expect(await ipSeen("192.168.0.0/16", "203.0.113.9")).toBe("10.0.0.5");
  });
});
