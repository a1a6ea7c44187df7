/** Contract: connecting, state changes, failures a dealer can act on, server time. */
import { expect, it } from "vitest";
import type { StateChange } from "../../../../server/connectors/connector.ts";
import type { ConnectorHarness } from "./harness.ts";
import { expectConnectorError } from "./helpers.ts";

export function connectionContract(h: () => ConnectorHarness): void {
  it("connects, reports every state change, and disconnects on purpose", async () => {
    const { connector } = h();
    await connector.disconnect();
    const changes: StateChange[] = [];
    const stop = connector.onStateChange((c) => changes.push(c));
    await connector.connect();
    await connector.connect(); // a second call while connected is a no-op
    await connector.disconnect();
    stop();
    expect(changes.map((c) => [c.previous, c.state])).toEqual([
      ["disconnected", "connecting"],
      ["connecting", "connected"],
      ["connected", "disconnected"],
    ]);
    expect(connector.lastError).toBeNull();
  });

  it("refuses a wrong manager login as credentialsRefused, without repeating the password", async () => {
    const harness = h();
    const stranger = harness.connectorWith({ login: "1000", password: "wrong-password" });
    const states: string[] = [];
    stranger.onStateChange((c) => states.push(c.state));
    const error = await expectConnectorError(stranger.connect(), "credentialsRefused");
    expect(error.message).toMatch(/refused/i);
    expect(error.message).not.toContain("wrong-password");
    expect(states).toEqual(["connecting", "failed"]);
    expect(stranger.state).toBe("failed");
    expect(stranger.lastError?.code).toBe("credentialsRefused");
    await expectConnectorError(stranger.listGroups(), "credentialsRefused");
  });

  it("reports an unreachable server, then connects once it is back", async () => {
    const harness = h();
    await harness.connector.disconnect();
    harness.faults.refuseConnections();
    await expectConnectorError(harness.connector.connect(), "unreachable");
    expect(harness.connector.state).toBe("failed");
    harness.faults.restore();
    await harness.connector.connect();
    expect(harness.connector.state).toBe("connected");
  });

  it("refuses requests while not connected, with the reason", async () => {
    const harness = h();
    await harness.connector.disconnect();
    await expectConnectorError(harness.connector.listGroups(), "unreachable");
  });

  it("tells the server time and its offset", async () => {
    const harness = h();
    const time = await harness.connector.serverTime();
    expect(Math.abs(time.time - harness.now())).toBeLessThan(1000);
    expect(Number.isInteger(time.timeZoneOffsetMinutes)).toBe(true);
  });

  it("times out a slow answer with a timeout error", async () => {
    const harness = h();
    harness.faults.slowAnswers(harness.requestTimeoutMs * 3);
    const outcome = expectConnectorError(harness.connector.listGroups(), "timeout");
    await harness.advance(harness.requestTimeoutMs + 1);
    const error = await outcome;
    expect(error.retryable).toBe(true);
    harness.faults.restore();
    await harness.advance(harness.requestTimeoutMs * 3);
  });
}
