import { isRouteErrorResponse, useRouteError } from "react-router";
import { FatalErrorPage } from "./FatalErrorPage";
import { isFatalErrorData } from "./fatalError";

/** docs/requirements.md#r-routes texts, word for word. */
export const NOT_FOUND_TITLE = "Page not found";
export const NOT_FOUND_DESCRIPTION = "We are sorry but this page could not be found.";

/** What the root error boundary shows for each kind of fatal error. */
export function RootErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error)) {
    const data: unknown = error.data;
    if (isFatalErrorData(data) && data.kind === "route-validation") {
      return <FatalErrorPage status={error.status} title={data.message} description={NOT_FOUND_DESCRIPTION} />;
    }
    if (error.status === 404) return <FatalErrorPage status={404} title={NOT_FOUND_TITLE} description={NOT_FOUND_DESCRIPTION} />;
    return <FatalErrorPage status={error.status} title={error.statusText || "Something went wrong"} description={describeStatus(error.status)} />;
  }
  // A bug: the details go to the console (and the server log), never to the page.
  if (typeof window !== "undefined") console.error(error);
  return (
    <FatalErrorPage
      status={500}
      title="Something went wrong"
      description="Toolbox hit an unexpected error. Going back home usually helps; if it keeps happening, tell your administrator."
    />
  );
}

function describeStatus(status: number): string {
  if (status === 401 || status === 403) return "You are not allowed to open this page.";
  if (status >= 500) return "The service could not answer. Please try again in a moment.";
  return "This page could not be shown.";
}
