import { TriangleAlert } from "lucide-react";
import { Component, type ErrorInfo, type ReactNode } from "react";
import { Button } from "./Button";
import { cn } from "./cn";

interface SectionBoundaryProps {
  children: ReactNode;
  /** Names the section in the console log ("Settings", "The account panel"). */
  name: string;
  /** When any of these change (another tab, another account), the section is tried again. */
  resetKeys?: readonly unknown[];
  /** Closes the section instead of trying again (a panel over the page). */
  onDismiss?: () => void;
  /** Where the message stands (a panel's position); in the page's flow by default. */
  fallbackClassName?: string;
}

interface SectionBoundaryState {
  error: Error | null;
}

/**
 * One part of a page that may fail on its own: a bug while it renders shows a short message with
 * "Try again" in its place, and the rest of the page (navigation, other panels) keeps working.
 * Errors a route's loader throws (not found, bad parameters) still go to the route's boundary.
 */
export class SectionBoundary extends Component<SectionBoundaryProps, SectionBoundaryState> {
  state: SectionBoundaryState = { error: null };

  static getDerivedStateFromError(error: unknown): SectionBoundaryState {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    // The details are for the developer console and support, never for the page.
    console.error(`${this.props.name} could not be shown`, error, info.componentStack);
  }

  componentDidUpdate(previous: SectionBoundaryProps) {
    if (this.state.error && changed(previous.resetKeys, this.props.resetKeys)) this.setState({ error: null });
  }

  private readonly retry = () => this.setState({ error: null });

  render() {
    if (!this.state.error) return this.props.children;
    const { onDismiss, fallbackClassName } = this.props;
    return (
      <div role="alert" className={cn("flex flex-col items-start gap-3 rounded-lg border border-warning/40 bg-warning/5 p-5", fallbackClassName)}>
        <p className="flex items-center gap-2 font-semibold">
          <TriangleAlert aria-hidden className="size-5 shrink-0 text-warning" />
          This part could not be shown
        </p>
        <p className="max-w-prose text-sm text-muted">
          Something went wrong while showing it; the rest of the page still works. Try again, and if it keeps happening, tell your administrator.
        </p>
        <div className="flex flex-wrap gap-2">
          <Button size="sm" onClick={this.retry}>
            Try again
          </Button>
          {onDismiss ? (
            <Button size="sm" variant="secondary" onClick={onDismiss}>
              Close
            </Button>
          ) : null}
        </div>
      </div>
    );
  }
}

function changed(a: readonly unknown[] = [], b: readonly unknown[] = []): boolean {
  return a.length !== b.length || a.some((value, i) => !Object.is(value, b[i]));
}
