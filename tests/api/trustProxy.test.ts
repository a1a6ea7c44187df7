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
});
