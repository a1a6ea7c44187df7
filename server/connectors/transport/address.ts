/**
 * Host and port as written in an address: an IPv6 literal stands in brackets before `:port` and in
 * a URL, and an address (not a name) gets no TLS server name. No dependencies, so the local
 * protocol servers (server/protocolServers/) write their addresses with it too.
 */

/** A host as it stands before `:port` or in a URL: an IPv6 address in brackets. */
export function bracketHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

/** `host:port`, the host bracketed when it is an IPv6 address. */
export function hostPort(host: string, port: number | string): string {
  return `${bracketHost(host)}:${port}`;
}

/** An address, not a name: TLS sends no server name (SNI) for it. */
export function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(":") || host.startsWith("[");
}
