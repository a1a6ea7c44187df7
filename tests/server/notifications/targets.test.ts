/** The address checks of outgoing notification requests (server/net/targets.ts), at save and at connect. */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { postTo } from "../../../server/net/post.ts";
import { addressProblem, parseTargetPolicy, urlProblem } from "../../../server/net/targets.ts";

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
    } finally {
      server.close();
    }
  });
});
