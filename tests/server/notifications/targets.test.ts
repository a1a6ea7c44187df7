/** The address checks of outgoing notification requests (server/net/targets.ts), at save and at connect. */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { postTo } from "../../../server/net/post.ts";
import { addressProblem, parseTargetPolicy, urlProblem } from "../../../server/net/targets.ts";
import { checkTarget, tradeServerTargetPolicy } from "../../../server/connectors/target.ts";

describe("target checks", () => {
  const none = parseTargetPolicy("");

  it("refuses private, loopback, link-local, metadata and reserved addresses; allows public ones", () => {
    for (const ip of [
      "127.0.0.1",
      "10.0.0.5",
      "172.16.3.4",
      "192.168.0.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "fe80::1",
      "fd12::1",
      "::ffff:10.0.0.1",
      "224.0.0.1",
    ])
      expect(addressProblem(none, "h", ip), ip).toMatch(/TOOLBOX_ALLOWED_TARGETS/);
    for (const ip of ["93.184.215.14", "8.8.8.8", "2606:4700::1111"]) expect(addressProblem(none, "h", ip), ip).toBeNull();
  });

  it("allows only global unicast addresses: IPv4 written as IPv6, 6to4, Teredo, NAT64 and unassigned blocks are refused", () => {
    for (const ip of [
      "::7f00:1", // ::127.0.0.1, IPv4-compatible: the URL parser writes [::127.0.0.1] this way
      "::127.0.0.1",
      "::a9fe:a9fe", // ::169.254.169.254
      "::808:808", // IPv4-compatible, even of a public address: deprecated, never a real host
      "::ffff:7f00:1", // IPv4-mapped, written in hex
      "::ffff:0:7f00:1", // IPv4-translated (RFC 6145)
      "2002:7f00:1::1", // 6to4 of 127.0.0.1
      "2001:0:4136:e378::1", // Teredo
      "64:ff9b::a9fe:a9fe",
      "64:ff9b:1::a00:1", // local-use NAT64
      "100::1", // discard
      "4000::1", // outside 2000::/3
      "fec0::1", // site-local
      "198.18.0.1",
      "192.0.0.8",
      "255.255.255.255",
    ])
      expect(addressProblem(none, "h", ip), ip).toMatch(/TOOLBOX_ALLOWED_TARGETS/);
    for (const ip of ["::ffff:8.8.8.8", "2001:4860:4860::8888", "1.1.1.1"]) expect(addressProblem(none, "h", ip), ip).toBeNull();
    for (const url of ["http://[::127.0.0.1]/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:a9fe:a9fe]/", "http://[2002:7f00:1::1]/"])
      expect(urlProblem(none, url), url).toMatch(/TOOLBOX_ALLOWED_TARGETS/);
  });

  it("refuses the same addresses for trade servers, and still lets the operator allow loopback for them", async () => {
    const refused = /does not connect to this address.*TRADE_SERVER_ALLOWED_TARGETS/;
    for (const url of ["https://[::127.0.0.1]:443/", "https://[::ffff:169.254.169.254]/", "https://[2002:a9fe:a9fe::1]/"])
      await expect(checkTarget(new URL(url), tradeServerTargetPolicy("")), url).rejects.toThrow(refused);
    const loopback = tradeServerTargetPolicy("127.0.0.1");
    await expect(checkTarget(new URL("https://127.0.0.1:8443/"), loopback)).resolves.toBeUndefined();
    await expect(checkTarget(new URL("https://[::ffff:127.0.0.1]:8443/"), loopback)).resolves.toBeUndefined();
    // An IPv4-compatible address is not 127.0.0.1: naming it does not allow it.
    await expect(checkTarget(new URL("https://[::127.0.0.1]:8443/"), loopback)).rejects.toThrow(refused);
    expect(addressProblem(loopback, "h", "10.0.0.1")).toMatch(/TRADE_SERVER_ALLOWED_TARGETS/);
  });

  it("lets the operator allow addresses, blocks and host names", () => {
    const policy = parseTargetPolicy("127.0.0.1, 10.20.0.0/16, hooks.internal");
    expect(addressProblem(policy, "x", "127.0.0.1")).toBeNull();
    expect(addressProblem(policy, "x", "127.0.0.2")).not.toBeNull();
    expect(addressProblem(policy, "x", "10.20.9.9")).toBeNull();
    expect(addressProblem(policy, "x", "10.21.0.1")).not.toBeNull();
    expect(addressProblem(policy, "hooks.internal", "10.99.0.1")).toBeNull();
    expect(() => parseTargetPolicy("10.0.0.0/99")).toThrow(/prefix/);
    expect(() => parseTargetPolicy("not a host!")).toThrow(/not a host name/);
  });

  it("checks URLs when saved: scheme, credentials, literal addresses and localhost", () => {
    expect(urlProblem(none, "https://example.com/hook")).toBeNull();
    expect(urlProblem(none, "ftp://example.com/")).toMatch(/http/);
    expect(urlProblem(none, "https://user:pw@example.com/")).toMatch(/user name/);
    expect(urlProblem(none, "http://[::1]/")).toMatch(/TOOLBOX_ALLOWED_TARGETS/);
    expect(urlProblem(none, "http://localhost:3000/")).toMatch(/this machine/);
    expect(urlProblem(parseTargetPolicy("localhost"), "http://localhost:3000/")).toBeNull();
  });

  it("checks every resolved address again when connecting, so a name cannot lead to a private address", async () => {
    const server = http.createServer((_req, res) => res.end("ok"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    try {
      // "localhost" resolves to loopback: refused at connect time, nothing reaches the server.
      await expect(postTo(none, `http://localhost:${port}/`, "{}", {})).rejects.toThrow(/resolves to .*loopback|TOOLBOX_ALLOWED_TARGETS/);
      const allowed = await postTo(parseTargetPolicy("127.0.0.1, ::1"), `http://localhost:${port}/`, "{}", {});
      expect(allowed).toEqual({ status: 200, body: "ok" });
      // A literal address is connected to without a lookup: it is checked before the connection too.
      let reached = 0;
      server.on("request", () => reached++);
      for (const url of [`http://127.0.0.1:${port}/`, `http://[::127.0.0.1]:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`])
        await expect(postTo(none, url, "{}", {}), url).rejects.toThrow(/loopback|TOOLBOX_ALLOWED_TARGETS/);
      expect(reached).toBe(0);
      expect(await postTo(parseTargetPolicy("127.0.0.1"), `http://127.0.0.1:${port}/`, "{}", {})).toEqual({ status: 200, body: "ok" });
      expect(reached).toBe(1);
    } finally {
      server.close();
    }
  });
});
