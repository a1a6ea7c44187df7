import { ConnectorError } from "../../connectors/errors.ts";
import { HttpError } from "../../http/errors.ts";

/**
 * A connector's failure as an API answer. Connector messages are written for a dealer and carry
 * no secrets (server/connectors/errors.ts), so they are shown as they are.
 */
export function httpErrorOf(error: unknown): unknown {
  if (!(error instanceof ConnectorError)) return error;
  switch (error.code) {
    case "invalidRequest":
      return new HttpError(400, error.message);
    case "notFound":
      return new HttpError(404, error.message);
    case "rejected":
      return new HttpError(422, error.message);
    default:
      // unreachable, timeout, refused credentials, resync: the platform, not the request, is the problem.
      return new HttpError(503, error.message);
  }
}

export async function viaConnector<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw httpErrorOf(error);
  }
}
