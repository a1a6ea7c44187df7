import { ArrowLeft } from "lucide-react";
import { Link } from "react-router";
import { Button } from "~/ui/Button";
import { ToolboxMark } from "~/ui/ToolboxMark";

interface FatalErrorPageProps {
  status: number;
  title: string;
  description: string;
}

/**
 * The whole window when a page cannot be shown at all: the not-found page and failed route
 * validations (docs/requirements.md#r-routes). It shows no data, so it needs no sign-in.
 */
export function FatalErrorPage({ status, title, description }: FatalErrorPageProps) {
  return (
    <main className="grid min-h-dvh place-items-center bg-bg px-6 py-12">
      <div className="flex max-w-md flex-col items-center text-center">
        <ToolboxMark className="size-10" />
        <p className="mt-8 font-mono text-6xl font-semibold tracking-tight text-primary" aria-hidden>
          {status}
        </p>
        <h1 className="mt-4 text-2xl font-semibold tracking-tight text-balance break-all sm:break-normal">{title}</h1>
        <p className="mt-2 text-sm text-muted">{description}</p>
        <Button asChild className="mt-8">
          <Link to="/">
            <ArrowLeft aria-hidden />
            Back to home
          </Link>
        </Button>
      </div>
    </main>
  );
}
