/**
 * A newcomer connects a real Match-Trader server through "Your server": the local Match-Trader
 * Broker API protocol server (the one `npm run simulator` runs: REST over HTTPS and the gRPC feed
 * over TLS, with its own CA), started by this test. Plain HTTP is refused by the form; a wrong API
 * key explains itself; the right one tests green, saves, and the server's accounts show in /users
 * (the steps: ./support/yourServer.ts).
 */
import { expect } from "vitest";
import { describeYourServer } from "./support/yourServer.ts";

describeYourServer({
  platform: "Match-Trader",
  type: "MatchTrader",
  protocolServer: "matchTraderApi",
  seed: 7007,
  newcomer: { name: "Grace Hopper", password: "compiler-a0-1952" },
  credential: "API key",
  async fillWrong(page, detail) {
    // Plain HTTP is refused next to its field, before anything is sent.
    await page.getByLabel("API URL").fill(detail("API URL").replace("https:", "http:"));
    await page.getByLabel("API key").fill("not-the-api-key");
    await page.getByRole("button", { name: "Test connection" }).click();
    await expect.poll(() => page.getByText("apiUrl must be an https:// URL").count(), { timeout: 10_000 }).toBeGreaterThan(0);

    await page.getByLabel("API URL").fill(detail("API URL"));
    await page.getByLabel("Live feed address (optional)").fill(detail("gRPC feed"));
  },
  refused: /refused the API key: it is wrong, expired or revoked/,
  async fillRight(page, detail) {
    await page.getByLabel("API key").fill(detail("API token"));
  },
});
