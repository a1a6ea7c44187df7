import { Spinner } from "./Spinner";
import { ToolboxMark } from "./ToolboxMark";

/**
 * The whole window while the shell waits (docs/requirements.md#r-routes: 'Signing in...', 'Loading...'). It is a live
 * status region, so screen readers announce the text.
 */
export function FullScreenPlaceholder({ text, hint }: { text: string; hint?: string }) {
  return (
    <main className="grid min-h-dvh place-items-center bg-bg p-6">
      <div role="status" className="flex flex-col items-center gap-4 text-muted">
        <ToolboxMark className="size-10" />
        <div className="flex items-center gap-2 text-sm font-medium">
          <Spinner size="sm" label={null} />
          <span>{text}</span>
        </div>
        {hint ? <p className="max-w-xs text-center text-xs">{hint}</p> : null}
      </div>
    </main>
  );
}
