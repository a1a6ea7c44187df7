/**
 * The Trades Blotter's stream worker (docs/decisions/0062): runs blotterStreamCore.ts off the main
 * thread. Before each connection attempt it asks the page for the API headers (the page renews
 * the bearer token if it is about to expire, and knows the current organization); the page
 * answers with them. Everything else is the core's protocol.
 */
import { createBlotterStreamCore, type BlotterWorkerInput, type BlotterWorkerOutput } from "./blotterStreamCore";

/** The dedicated worker's scope, as much of it as is used (the app's TypeScript lib is the DOM's). */
const scope = globalThis as unknown as {
  postMessage(message: BlotterWorkerOutput): void;
  onmessage: ((event: MessageEvent<BlotterWorkerInput>) => void) | null;
};

let lastRequest = 0;
const waiting = new Map<number, (headers: Headers) => void>();

const core = createBlotterStreamCore({
  post: (update) => scope.postMessage(update),
  headers: () =>
    new Promise((resolve) => {
      const id = ++lastRequest;
      waiting.set(id, resolve);
      scope.postMessage({ type: "headers?", id });
    }),
});

scope.onmessage = ({ data }) => {
  if (data.type === "headers") {
    waiting.get(data.id)?.(new Headers(data.entries));
    waiting.delete(data.id);
    return;
  }
  core.handle(data);
};
