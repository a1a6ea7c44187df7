/**
 * The local protocol servers on an IPv6 host (`npm run simulator -- --host ::1`): each listens,
 * gives an address a connector can use (the host in brackets), and a connector reads its
 * accounts through it. Match-Trader's gRPC feed binds on the same host.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createMatchTraderApiConnector } from "../../../server/connectors/matchTraderApi/transport.ts";
import { createMt4GatewayConnector } from "../../../server/connectors/mt4Gateway/connector.ts";
import { createMt5WebApiConnector } from "../../../server/connectors/mt5WebApi/connector.ts";
import { tradeServerTargetPolicy } from "../../../server/connectors/target.ts";
import { selfSignedCertificate } from "../../../server/protocolServers/certificates.ts";
import { PROTOCOL_SERVERS, type RunningProtocolServer } from "../../../server/protocolServers/registry.ts";

const LOOPBACK_V6 = tradeServerTargetPolicy("::1");
const running: RunningProtocolServer[] = [];
const disconnects: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const disconnect of disconnects.splice(0)) await disconnect();
  for (const server of running.splice(0)) await server.close();
});

function detail(server: RunningProtocolServer, label: string): string {
  const value = server.details.find(([l]) => l === label)?.[1];
  if (value === undefined) throw new Error(`${server.name} gives no ${label}`);
  return value;
}

describe("local protocol servers on an IPv6 host", () => {
  it.each(PROTOCOL_SERVERS.map((d) => [d.name, d] as const))("%s listens on ::1 and serves a connector there", async (_name, definition) => {
    const tls = await selfSignedCertificate();
    const server = await definition.start({ host: "::1", port: 0, seed: definition.defaultSeed, accounts: 3, tradeRate: 0, tls });
    running.push(server);
    const common = { ca: tls.ca, targets: LOOPBACK_V6, requestTimeoutMs: 5_000, connectTimeoutMs: 5_000 };
    const connector =
      definition.name === "matchTraderApi"
        ? createMatchTraderApiConnector({
            ...common,
            apiUrl: detail(server, "API URL"),
            grpcAddress: detail(server, "gRPC feed"),
            token: detail(server, "API token"),
          })
        : (definition.name === "mt5WebApi" ? createMt5WebApiConnector : createMt4GatewayConnector)({
            ...common,
            url: `https://${detail(server, "Address")}`,
            credentials: { login: detail(server, "Manager login"), password: detail(server, "Manager password") },
          });
    disconnects.push(() => connector.disconnect());
    if (definition.name === "matchTraderApi") expect(detail(server, "API URL")).toMatch(/^https:\/\/\[::1\]:\d+$/);
    else expect(detail(server, "Address")).toMatch(/^\[::1\]:\d+$/);
    await connector.connect();
    expect((await connector.listAccounts()).items).toHaveLength(3);
  });
});
