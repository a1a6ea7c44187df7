/**
 * A self-signed certificate for the local protocol servers (the MT5 Web API is HTTPS only). The
 * certificate is its own CA: a connector trusts exactly it (its PEM as the configured CA), never
 * "any certificate".
 */
import { generate } from "selfsigned";

export interface TestCertificate {
  key: string;
  cert: string;
  /** The PEM a connector is given as its CA. */
  ca: string;
}

export async function selfSignedCertificate(hosts: readonly string[] = ["localhost", "127.0.0.1", "::1"]): Promise<TestCertificate> {
  const altNames = hosts.map((host) => (/^[\d.]+$/.test(host) || host.includes(":") ? { type: 7 as const, ip: host } : { type: 2 as const, value: host }));
  const pems = await generate([{ name: "commonName", value: hosts[0] ?? "localhost" }], {
    keyType: "ec",
    curve: "P-256",
    notAfterDate: new Date(Date.now() + 30 * 24 * 3600_000),
    algorithm: "sha256",
    extensions: [
      { name: "basicConstraints", cA: true },
      { name: "subjectAltName", altNames },
    ],
  });
  return { key: pems.private, cert: pems.cert, ca: pems.cert };
}
