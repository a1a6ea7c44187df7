import type { Params } from "react-router";
import { validateRoute, type RouteRule } from "@core/routeValidation";
import { routeValidationFailed } from "./fatalError";

/**
 * A route's validation step (docs/requirements.md#r-routes), declared as its loader:
 *
 *   const validate = validatedLoader(routeRules.tradePlatform);
 *   export const loader = validate;       // server render: a failure is an HTTP error status
 *   export const clientLoader = validate; // client navigations validate without a server round trip
 *
 * (Not `clientLoader = loader`: React Router removes `loader` from the browser bundle.)
 *
 * It only looks at the URL, so it needs no sign-in and is the same on the server and in the browser.
 */
export function validatedLoader(...rules: RouteRule[]) {
  return function validateRouteLoader({ params, request }: { params: Params; request: Request }): null {
    const path = readablePath(new URL(request.url).pathname);
    const failure = validateRoute(rules, params, path);
    if (failure) routeValidationFailed(failure.status, failure.message);
    return null;
  };
}

function readablePath(pathname: string): string {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}
