import { data } from "react-router";

/**
 * What a route throws to end in the root error boundary: an unknown path ('not-found', the
 * not-found page) or a failed route validation (docs/requirements.md#r-routes: its status and 'Page Not Found: {path}').
 */
export type FatalErrorData = { kind: "not-found" } | { kind: "route-validation"; message: string };

export function isFatalErrorData(value: unknown): value is FatalErrorData {
  return typeof value === "object" && value !== null && "kind" in value;
}

export function notFound(): never {
  throw data<FatalErrorData>({ kind: "not-found" }, { status: 404 });
}

export function routeValidationFailed(status: number, message: string): never {
  throw data<FatalErrorData>({ kind: "route-validation", message }, { status });
}
