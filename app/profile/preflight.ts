import { api } from "~/api";
import { retry } from "~/api/retry";
import type { Claim, Organization, PreflightAnswer, TradePlatform } from "./types";
import { useProfileStore } from "./store";

/** docs/requirements.md#r-constants: a failed preflight is retried after 1000 ms, indefinitely. */
export const PREFLIGHT_RETRY_MS = 1000;

/**
 * The startup sequence of docs/requirements.md#r-states, in order. Failures are only logged and retried (docs/requirements.md#r-errors), so
 * the calls are silent: no 'Error' toast every second while the API is down. A 401 still signs in again.
 */
export async function runPreflight(): Promise<void> {
  const store = useProfileStore.getState();
  const answer = await api.get<PreflightAnswer>("/api/profile/preflight", { silent: true });
  store.setAppConfig(answer);
  const [claims, organizations] = await Promise.all([
    api.get<Claim[]>("/api/profile/user-claims", { silent: true }),
    api.get<Organization[]>("/api/organizations", { silent: true }),
  ]);
  store.setClaimsAndOrganizations(claims, organizations, answer.createdOrganizationId);
  const tradePlatforms = await api.get<TradePlatform[]>("/api/tradePlatforms", { silent: true });
  store.setTradePlatforms(tradePlatforms);
  store.setPreflightDone(true);
}

/** Runs preflight until it succeeds; the returned function stops further attempts. */
export function startPreflight(): () => void {
  const stop = new AbortController();
  // docs/requirements.md#r-constants: a fixed delay, not the growing backoff.
  retry(runPreflight, {
    signal: stop.signal,
    minTimeout: PREFLIGHT_RETRY_MS,
    factor: 1,
    randomize: false,
    retryIf: () => !stop.signal.aborted,
    onRetry: (error) => {
      console.error(`Preflight failed; retrying in ${PREFLIGHT_RETRY_MS} ms`, error);
      useProfileStore.getState().setPreflightError(error.message);
    },
  }).catch(() => {}); // only stopping ends it
  return () => stop.abort();
}
