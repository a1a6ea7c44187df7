/**
 * The caps on open live streams (server/streams/streamCaps.ts; docs/security.md, "Limits per
 * organization"), through the real server on loopback on both databases: every kind of stream
 * counts against one cap per person and one per organization; past one the answer is 429 with a
 * readable message and nothing is opened; a stream that ends gives its place back; another
 * organization is not held back.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { liveStreamCaps } from "../../server/streams/streamCaps.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

describeDb("live streams: capped per person and per organization", () => {
  let t: TestApp;
  let base: string;
  let tokens: TokenFactory;
  const opened: AbortController[] = [];

  beforeAll(async () => {
    t = await createTestApp({ TOOLBOX_MAX_LIVE_STREAMS_PER_PERSON: "3", TOOLBOX_MAX_LIVE_STREAMS_PER_ORGANIZATION: "5" });
    tokens = await tokenFactory(t.ctx);
    base = await t.app.listen({ port: 0, host: "127.0.0.1" });
  }, 60_000);
  afterAll(async () => {
    for (const c of opened) c.abort();
    await t?.close();
  });

  async function open(path: string, headers: Record<string, string>) {
    const controller = new AbortController();
    const res = await fetch(`${base}${path}`, { headers, signal: controller.signal });
    if (res.status === 200) opened.push(controller);
    return { res, close: () => controller.abort() };
  }

  async function waitFor(check: () => boolean, what: string) {
    for (const end = Date.now() + 5000; Date.now() < end;) {
      if (check()) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  it("refuses a person's stream past their cap and an organization's past its cap (429), whatever the stream, and frees a place when one ends", async () => {
    const ada = newPerson("Ada Streams");
    const bob = newPerson("Bob Streams");
    const eve = newPerson("Eve Elsewhere");
    const org = await signUp(t, tokens, ada);
    await addMember(t.ctx, org, bob, { [`Module.inbox.${org}`]: "read", [`Module.tradePlatforms.${org}`]: "read" });
    const eveOrg = await signUp(t, tokens, eve);
    const adaH = apiHeaders(await tokens.mint(ada), org);
    const bobH = apiHeaders(await tokens.mint(bob), org);
    const eveH = apiHeaders(await tokens.mint(eve), eveOrg);

    const first = await open("/api/tradePlatforms/live", adaH);
    expect(first.res.status).toBe(200);
    expect((await open("/api/inbox/live", adaH)).res.status).toBe(200);
    expect((await open("/api/tradePlatforms/live", adaH)).res.status).toBe(200);
    const fourth = await open("/api/inbox/live", adaH);
    expect(fourth.res.status).toBe(429);
    expect((await fourth.res.json()).message).toBe(
      "You already have 3 live views open (the most allowed is 3, TOOLBOX_MAX_LIVE_STREAMS_PER_PERSON). Close some tabs or live pages, then try again.",
    );

    // Bob fills the organization's five; his third is refused by the organization's cap.
    expect((await open("/api/inbox/live", bobH)).res.status).toBe(200);
    expect((await open("/api/tradePlatforms/live", bobH)).res.status).toBe(200);
    const bobThird = await open("/api/inbox/live", bobH);
    expect(bobThird.res.status).toBe(429);
    expect((await bobThird.res.json()).message).toBe(
      "This organization already has 5 live views open (the most allowed is 5, TOOLBOX_MAX_LIVE_STREAMS_PER_ORGANIZATION). Try again when some are closed.",
    );

    // Another organization is not held back.
    expect((await open("/api/inbox/live", eveH)).res.status).toBe(200);

    // A stream that ends gives its place back.
    const caps = liveStreamCaps(t.ctx);
    first.close();
    await waitFor(() => caps.count({ organizationId: org }) === 4, "the closed stream to be counted out");
    expect((await open("/api/inbox/live", bobH)).res.status).toBe(200);
    expect(caps.count({ sub: ada.sub })).toBe(2);
    expect(caps.count({ sub: bob.sub })).toBe(3);
  });
});
