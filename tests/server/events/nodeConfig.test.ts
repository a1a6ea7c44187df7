/**
 * The settings of several nodes (server/config.ts; docs/configuration.md): the node's id and its
 * feed leases' time to live, and the NATS stream's duplicate window, with readable refusals.
 */
import { expect, it } from "vitest";
import { loadConfig } from "../../../server/config.ts";

const base = { NODE_ENV: "test" };

it("gives each process a node id of its own unless NODE_ID names it, and a 15 s feed lease by default", () => {
  const a = loadConfig(base);
  const b = loadConfig(base);
  expect(a.node.id).not.toBe(b.node.id);
  expect(a.node.feedLeaseTtlMs).toBe(15_000);
  expect(loadConfig({ ...base, NODE_ID: "eu-west-1a:node-2", FEED_LEASE_TTL_MS: "3000" }).node).toEqual({ id: "eu-west-1a:node-2", feedLeaseTtlMs: 3_000 });
});

it("refuses a node id or a lease time to live it cannot use, naming the variable", () => {
  expect(() => loadConfig({ ...base, NODE_ID: "node one" })).toThrow(/NODE_ID holds 1 to 100 letters/);
  expect(() => loadConfig({ ...base, FEED_LEASE_TTL_MS: "100" })).toThrow(/FEED_LEASE_TTL_MS must be at least 300/);
  expect(() => loadConfig({ ...base, FEED_LEASE_TTL_MS: "15s" })).toThrow(/FEED_LEASE_TTL_MS must be a whole number of milliseconds/);
});

it("sets the NATS stream's duplicate window, two minutes by default", () => {
  expect(loadConfig({ ...base, NATS_URL: "nats://127.0.0.1:4222" }).nats?.duplicateWindowMs).toBe(120_000);
  expect(loadConfig({ ...base, NATS_URL: "nats://127.0.0.1:4222", NATS_STREAM_DUPLICATE_WINDOW_SECONDS: "30" }).nats?.duplicateWindowMs).toBe(30_000);
  expect(() => loadConfig({ ...base, NATS_STREAM_DUPLICATE_WINDOW_SECONDS: "0" })).toThrow(/NATS_STREAM_DUPLICATE_WINDOW_SECONDS must be at least 1/);
});
