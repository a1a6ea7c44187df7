/**
 * Every failure a connector reports is a ConnectorError with a code the rest of Toolbox branches
 * on and a message written for a dealer: what happened and what to do, never a stack trace, a
 * protocol dump or a secret.
 */
export type ConnectorErrorCode =
  | "unreachable"
  | "credentialsRefused"
  | "timeout"
  | "rejected"
  | "notFound"
  | "invalidRequest"
  /** The events after the consumer's last sequence are gone: reload a snapshot, then subscribe again. */
  | "resyncRequired";

/** Why a platform refused an operation it understood. */
export type RejectReason =
  | "notEnoughMoney"
  | "marketClosed"
  | "tradeDisabled"
  | "accountDisabled"
  | "invalidVolume"
  | "invalidStops"
  /** A pending order's price on the wrong side of the market, or nearer to it than the stops level. */
  | "invalidPrice"
  /** A pending order's expiration already past. */
  | "invalidExpiration"
  | "priceChanged"
  | "tooManyPositions"
  | "serverBusy"
  /**
   * The amount is past what the server holds: more than one operation may move, or a balance,
   * credit or equity past the account bound (core/trading/money.ts). MT5: 4005 TRADE_MAX_MONEY.
   */
  | "maxMoney"
  | "other";

export class ConnectorError extends Error {
  override readonly name = "ConnectorError";
  constructor(
    readonly code: ConnectorErrorCode,
    message: string,
    readonly reason?: RejectReason,
  ) {
    super(message);
  }

  /** Trying again later may succeed: the link or the server's load, not the request, was the problem. */
  get retryable(): boolean {
    return this.code === "unreachable" || this.code === "timeout" || this.reason === "serverBusy";
  }

  toJSON() {
    return { code: this.code, reason: this.reason, message: this.message };
  }
}

/**
 * An operation this connector does not carry yet (e.g. pending orders on a vendor's protocol
 * before its connector implements them): refused before anything is sent, so nothing happened.
 */
export class NotSupportedError extends ConnectorError {
  constructor(readonly operation: string) {
    super("invalidRequest", `${operation} is not supported on this connection yet; nothing was sent to the trading server.`);
  }
}

/**
 * A configuration write refused because the server's object is no longer the one the editor read
 * (another manager, another Toolbox member changed it meanwhile): nothing was sent. Carries the
 * server's object as it is now and its version (core/trading/configVersion.ts), to show beside
 * the staged change. Code `rejected`, reason `other`; tell it apart with `isConfigChanged`.
 */
export class ConfigChangedError<T extends object = object> extends ConnectorError {
  readonly kind = "configChanged";
  constructor(
    what: string,
    /** The server's object now. */
    readonly current: T,
    /** Its version now. */
    readonly currentVersion: string,
  ) {
    super("rejected", `${what} was changed on the trading server since it was read; nothing was sent. Review the server's version and apply again.`, "other");
  }

  override toJSON() {
    return { ...super.toJSON(), kind: this.kind, current: this.current, currentVersion: this.currentVersion };
  }
}

export function isConfigChanged(error: unknown): error is ConfigChangedError {
  return error instanceof ConfigChangedError;
}

export function isConnectorError(error: unknown, code?: ConnectorErrorCode): error is ConnectorError {
  return error instanceof ConnectorError && (code === undefined || error.code === code);
}

export const connectorErrors = {
  unreachable: (detail = "Check the server address and that the server is running.") =>
    new ConnectorError("unreachable", `The trading server could not be reached. ${detail}`),
  connectionLost: () => new ConnectorError("unreachable", "The connection to the trading server was lost. Toolbox is reconnecting."),
  notConnected: (state: string) =>
    new ConnectorError("unreachable", `Toolbox is not connected to this trading server (${state}); nothing was sent. Try again in a moment.`),
  credentialsRefused: () =>
    new ConnectorError(
      "credentialsRefused",
      "The trading server refused the manager login or password (or API key). Check them in the platform's connection settings.",
    ),
  timeout: (ms: number) =>
    new ConnectorError(
      "timeout",
      `The trading server did not answer within ${formatSeconds(ms)}. It may be overloaded; the operation may or may not have been applied, so retry it with the same operation id.`,
    ),
  rejected: (reason: RejectReason, message: string) => new ConnectorError("rejected", message, reason),
  notFound: (message: string) => new ConnectorError("notFound", message),
  notSupported: (operation: string) => new NotSupportedError(operation),
  invalidRequest: (message: string) => new ConnectorError("invalidRequest", message),
  /** A platform without server plugins (Match-Trader): asked to list or configure them. */
  noPlugins: (platform: string) =>
    new ConnectorError(
      "rejected",
      platform === "MatchTrader"
        ? "Match-Trader has no server plugins: its Broker API offers nothing to list or configure them."
        : "This trading server has no plugins a manager connection can list or configure.",
      "other",
    ),
  resyncRequired: (afterSequence: number) =>
    new ConnectorError(
      "resyncRequired",
      `Trade events after #${afterSequence} are no longer available from this connection. Reload accounts and positions, then subscribe again.`,
    ),
};

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
