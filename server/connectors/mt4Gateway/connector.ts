/** A connector to a real MT4 server through the MT4 manager gateway: the MT4 codec over the HTTPS transport. */
import type {
  CancelPendingOrderRequest,
  ClosePositionRequest,
  ModifyPendingOrderRequest,
  ModifyPositionRequest,
  OrderRequest,
  PlacePendingOrderRequest,
} from "../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../connector.ts";
import { connectorErrors } from "../errors.ts";
import { mt4Codec } from "../mt4/codec.ts";
import { zonedConnector, type ZonedConnectorOptions } from "../transport/connector.ts";
import { MT4_COMMENT_MAX, MT4_GATEWAY_REQUEST_ID } from "./format.ts";
import { Mt4GatewayTransport, type Mt4GatewayTransportOptions } from "./transport.ts";

export interface Mt4GatewayConnectorOptions extends Omit<Mt4GatewayTransportOptions, "clock">, ZonedConnectorOptions {}

export function createMt4GatewayConnector(options: Mt4GatewayConnectorOptions): TradePlatformConnector & { transport: Mt4GatewayTransport } {
  // The server's zone (daylight time included) is learnt at each login; times convert with the latest one.
  const connector = zonedConnector(options, (clock) => new Mt4GatewayTransport({ ...options, clock }), mt4Codec);
  // Orders, market and pending, are exactly once through the gateway's request_id, so an id it
  // would refuse is refused here, before anything is sent (and whether or not the gateway is
  // reachable); so is a comment longer than MT4 keeps.
  const placeOrder = connector.placeOrder.bind(connector);
  const modifyPosition = connector.modifyPosition.bind(connector);
  const closePosition = connector.closePosition.bind(connector);
  const placePendingOrder = connector.placePendingOrder.bind(connector);
  const modifyPendingOrder = connector.modifyPendingOrder.bind(connector);
  const cancelPendingOrder = connector.cancelPendingOrder.bind(connector);
  return Object.assign(connector, {
    placeOrder: async (request: OrderRequest) => placeOrder(gatewayRequestId(request)),
    modifyPosition: async (request: ModifyPositionRequest) => modifyPosition(gatewayRequestId(request)),
    closePosition: async (request: ClosePositionRequest) => closePosition(gatewayRequestId(request)),
    placePendingOrder: async (request: PlacePendingOrderRequest) => placePendingOrder(gatewayRequestId(request)),
    modifyPendingOrder: async (request: ModifyPendingOrderRequest) => modifyPendingOrder(gatewayRequestId(request)),
    cancelPendingOrder: async (request: CancelPendingOrderRequest) => cancelPendingOrder(gatewayRequestId(request)),
  });
}

function gatewayRequestId<R extends { requestId: string; comment?: string }>(request: R): R {
  if (typeof request.requestId !== "string" || !MT4_GATEWAY_REQUEST_ID.test(request.requestId))
    throw connectorErrors.invalidRequest(
      "An MT4 request id is 1 to 100 letters, digits, underscores, colons, dots or hyphens (the gateway keeps orders exactly once by it); use an id such as a UUID.",
    );
  if (typeof request.comment === "string" && request.comment.length > MT4_COMMENT_MAX)
    throw connectorErrors.invalidRequest(`An MT4 comment holds at most ${MT4_COMMENT_MAX} characters; this one has ${request.comment.length}.`);
  return request;
}
