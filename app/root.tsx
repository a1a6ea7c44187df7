import { Links, Meta, Outlet, Scripts, ScrollRestoration, isRouteErrorResponse, useLoaderData, useRouteError, useRouteLoaderData } from "react-router";
import type { ReactNode } from "react";
import type { Route } from "./+types/root";
import type { ToolboxLoadContext } from "../core/loadContext";
import "./app.css";

export function loader({ context }: Route.LoaderArgs) {
  const ctx = context as unknown as ToolboxLoadContext;
  return { config: ctx.config, nonce: ctx.cspNonce };
}

export const meta: Route.MetaFunction = () => [{ title: "Toolbox" }];

export function Layout({ children }: { children: ReactNode }) {
  const data = useRouteLoaderData<typeof loader>("root");
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body className="min-h-dvh antialiased">
        {children}
        <ScrollRestoration nonce={data?.nonce} />
        <Scripts nonce={data?.nonce} />
      </body>
    </html>
  );
}

export default function App() {
  useLoaderData<typeof loader>();
  return <Outlet />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  const status = isRouteErrorResponse(error) ? error.status : 500;
  return (
    <main className="grid min-h-dvh place-items-center p-6 text-center">
      <div>
        <p className="text-5xl font-bold">{status}</p>
        <h1 className="mt-2 text-xl font-semibold">{status === 404 ? "Page not found" : "Something went wrong"}</h1>
      </div>
    </main>
  );
}
