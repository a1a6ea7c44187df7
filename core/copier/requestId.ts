/**
 * The request id of a follower action: derived from the link, the follower, the source position
 * or order, and the action, so a retry (after a crash, a restart, a node's death) sends the same
 * id again and the connector's exactly-once returns the first result instead of trading twice.
 * Never from the bus sequence, which restarts after a feed takeover.
 *
 * Shaped as a UUID (version nibble 8, "custom"), from a pure 128-bit string hash (cyrb128: four
 * 32-bit lanes of multiply-xorshift): core/ runs in the browser too, where node:crypto is not.
 * It is an idempotency key, not a secret: nothing relies on it being hard to guess.
 */
import type { SourceAction } from "./types.ts";

function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

function hex8(n: number): string {
  return n.toString(16).padStart(8, "0");
}

/** A UUID-shaped digest of `text` (same text, same id). */
export function stableId(text: string): string {
  const [a, b, c, d] = cyrb128(text);
  const h = hex8(a) + hex8(b) + hex8(c) + hex8(d);
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The follower as the ledger names it: platform and login. */
export function followerKey(account: { platformId: string; login: string }): string {
  return `${account.platformId}:${account.login}`;
}

/** The source position or order an action belongs to. */
export function sourceIdOf(action: SourceAction): string {
  switch (action.type) {
    case "open":
    case "stops":
    case "partialClose":
    case "close":
      return `position:${action.position.id}`;
    case "orderFilled":
      // The fill opens the position: the same id an open of that position would get.
      return `position:${action.position.id}`;
    default:
      return `order:${action.order.id}`;
  }
}

/**
 * What tells this action apart from the others on the same source position or order, from the
 * event's own content. A partial close by the volume that remains (strictly falling, so unique);
 * a stops change or an order change by its time and new values.
 */
export function actionKeyOf(action: SourceAction): string {
  switch (action.type) {
    case "open":
    case "orderFilled":
      return "open";
    case "close":
      return "close";
    case "partialClose":
      return `partial:${action.position.volume}`;
    case "stops":
      return `stops:${action.time}:${action.position.sl}:${action.position.tp}`;
    case "orderPlaced":
      return "place";
    case "orderModified":
      return `modify:${action.time}:${action.order.price}:${action.order.sl}:${action.order.tp}:${action.order.expiration}`;
    case "orderCancelled":
      return "cancel";
  }
}

export function copyRequestId(linkId: string, follower: string, action: SourceAction): string {
  return stableId(`copier|${linkId}|${follower}|${sourceIdOf(action)}|${actionKeyOf(action)}`);
}
