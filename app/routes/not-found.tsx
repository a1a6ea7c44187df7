import { notFound } from "~/features/routing/fatalError";

/**
 * Every unknown path. The loader answers 404 (also the HTTP status of a server-rendered page) and
 * the root error boundary draws the not-found page, without sign-in: it shows no data.
 */
// React Router strips `loader` from the browser bundle, so the client loader can't refer to it.
export function loader(): never {
  notFound();
}

export function clientLoader(): never {
  notFound();
}

export default function NotFoundRoute() {
  return null;
}
