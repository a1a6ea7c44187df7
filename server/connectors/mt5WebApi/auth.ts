/**
 * The MT5 Web API's MD5 challenge (docs/connectors.md#vendor-mt5, from the SDK's MTUtils.GetHashFromPassword
 * and MTAuthProtocol). Every concatenation is of raw bytes, never of hex strings. Both sides use
 * it: the connector answers the server's challenge and checks the server's answer to its own;
 * the protocol server does the reverse.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { ConnectorError, connectorErrors } from "../errors.ts";
import { retcodeNumber } from "./format.ts";

const md5 = (...parts: Buffer[]) => createHash("md5").update(Buffer.concat(parts)).digest();

/** MD5(MD5(password as UTF-16LE) || "WebAPI"), 16 raw bytes. */
export function passwordHash(password: string): Buffer {
  return md5(md5(Buffer.from(password, "utf16le")), Buffer.from("WebAPI", "ascii"));
}

/** hex(MD5(pass_hash || random bytes)): the answer to a 16-byte challenge given in hex. */
export function challengeAnswer(passHash: Buffer, randomHex: string): string {
  if (!/^[0-9a-fA-F]{32}$/.test(randomHex)) throw new Error("A challenge is 16 bytes in hex");
  return md5(passHash, Buffer.from(randomHex, "hex")).toString("hex");
}

/** 16 cryptographically random bytes in hex (srv_rand, cli_rand). */
export function randomChallenge(): string {
  return randomBytes(16).toString("hex");
}

/** Compares two hex answers in constant time. */
export function sameAnswer(expected: string, given: string): boolean {
  const a = Buffer.from(expected.toLowerCase());
  const b = Buffer.from(given.toLowerCase());
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Vendor retcodes on the handshake, in a dealer's words. */
export function handshakeError(retcode: string): ConnectorError {
  const code = retcodeNumber(retcode);
  if (code === 8)
    return new ConnectorError(
      "credentialsRefused",
      'The trading server refused the manager: it lacks the rights Toolbox needs (MT5 retcode 8). In MT5 Administrator, allow "Connect via Manager" and the rights for accounts, trades and balance operations.',
    );
  if (code === 1012)
    return new ConnectorError(
      "credentialsRefused",
      "The trading server refused the manager login from this address: the IP is not on the manager's whitelist (MT5 retcode 1012). Add Toolbox's address in MT5 Administrator.",
    );
  if (code === 1034)
    return new ConnectorError(
      "credentialsRefused",
      "The trading server refused the login: the Web API is switched off on this access server (MT5 retcode 1034).",
    );
  return connectorErrors.credentialsRefused();
}
