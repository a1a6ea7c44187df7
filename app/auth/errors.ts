import { AUTH_MESSAGES as M } from "./messages";

/**
 * oidc-client-ts v3 words some failures differently from the docs/requirements.md#r-errors catalogue (which follows the
 * older oidc-client). Translating here keeps one set of texts on screen, whichever layer failed.
 */
const LIBRARY_TO_CATALOGUE: Record<string, string> = {
  "nonce in id_token does not match nonce in client storage": M.nonceInvalid,
  "ID Token is missing a subject claim": M.subMissing,
  "Expected code in response": M.noCode,
  "IFrame timed out without a response": M.frameTimedOut,
  "Popup closed by user": M.popupClosed,
  "Popup closed": M.popupClosed,
  "A token is required": M.tokenRequired,
  url: M.noUrl,
  // What browsers say when fetch() cannot reach the server.
  "Failed to fetch": M.networkError,
  "NetworkError when attempting to fetch resource.": M.networkError,
  "Load failed": M.networkError,
};

/**
 * The text an auth failure toast shows: the error's message (a provider error response already
 * carries its error_description or error), or 'unknown error'.
 */
export function authErrorText(error: unknown): string {
  const message = error instanceof Error ? error.message : typeof error === "string" ? error : "";
  if (!message) return M.unknownError;
  return LIBRARY_TO_CATALOGUE[message] ?? message;
}

/** A provider error response (error, error_description) as an Error whose text is the description. */
export function providerError(params: URLSearchParams): Error | null {
  const error = params.get("error");
  if (!error) return null;
  return Object.assign(new Error(params.get("error_description") || error), { name: "ErrorResponse", error });
}
