import { ChevronDown, Copy, Pencil, Trash2 } from "lucide-react";
import { useCallback, useEffect, useState } from "react";
import { Button } from "~/ui/Button";
import { DialogClose, DialogContent, DialogRoot, DialogTrigger } from "~/ui/Dialog";
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuLabel, DropdownMenuSeparator, DropdownMenuTrigger } from "~/ui/DropdownMenu";
import { Field } from "~/ui/Field";
import { FullScreenPlaceholder } from "~/ui/FullScreenPlaceholder";
import { Input } from "~/ui/Input";
import { trackActivity } from "~/ui/loadingBar";
import { toast, type ToastColor } from "~/ui/toast";
import { Tooltip } from "~/ui/Tooltip";
import { Sample } from "./ThemePanels";

const TOASTS: { color: ToastColor; title: string; description: string }[] = [
  { color: "success", title: "Saved", description: "Dealing settings were applied to Demo MT5." },
  { color: "info", title: "Platform reconnected", description: "Demo MT4 answers again." },
  { color: "warning", title: "Authentication expired", description: "Authenticating back..." },
  {
    color: "error",
    title: "Error",
    description: "Seems that remote service temporary unavailable, please try again later or wait until it get online automatically",
  },
  { color: "neutral", title: "Copied", description: "The login is on your clipboard." },
];

/** Blocks that open over the page (portals follow the page's own colour mode). */
export function InteractiveSamples() {
  const [placeholder, setPlaceholder] = useState(false);
  const hidePlaceholder = useCallback(() => setPlaceholder(false), []);
  return (
    <div className="grid gap-6 rounded-lg border border-border bg-surface p-5 md:grid-cols-2">
      <Sample title="Toasts">
        <div className="flex flex-wrap gap-2">
          {TOASTS.map((t) => (
            <Button key={t.color} size="sm" variant="secondary" onClick={() => toast({ ...t })}>
              {t.color}
            </Button>
          ))}
          <Button
            size="sm"
            variant="secondary"
            onClick={() =>
              toast({ title: "A new version of Toolbox is available", color: "info", icon: "refresh", action: { label: "Reload", onClick: () => undefined } })
            }
          >
            with action
          </Button>
        </div>
      </Sample>
      <Sample title="Tooltips">
        <div className="flex gap-2">
          <Tooltip content="Copy the login">
            <Button size="icon" variant="secondary" aria-label="Copy">
              <Copy aria-hidden />
            </Button>
          </Tooltip>
          <Tooltip content="Opens after 700 ms; the next one at once" side="bottom">
            <Button size="sm" variant="ghost">
              Hover or focus me
            </Button>
          </Tooltip>
        </div>
      </Sample>
      <Sample title="Dialog">
        <DialogRoot>
          <DialogTrigger asChild>
            <Button size="sm" variant="danger" className="w-fit">
              Delete platform…
            </Button>
          </DialogTrigger>
          <DialogContent
            title="Delete Demo MT5?"
            description="Its settings and application assignments are removed. Type the name to confirm."
            footer={
              <>
                <DialogClose asChild>
                  <Button variant="secondary">Cancel</Button>
                </DialogClose>
                <Button variant="danger">Delete</Button>
              </>
            }
          >
            <Field label="Platform name">
              <Input placeholder="Demo MT5" />
            </Field>
          </DialogContent>
        </DialogRoot>
      </Sample>
      <Sample title="Dropdown menu">
        <DropdownMenu>
          <DropdownMenuTrigger asChild>
            <Button size="sm" variant="secondary" className="w-fit">
              Actions
              <ChevronDown aria-hidden />
            </Button>
          </DropdownMenuTrigger>
          <DropdownMenuContent align="start">
            <DropdownMenuLabel>Account 100245</DropdownMenuLabel>
            <DropdownMenuItem>
              <Pencil aria-hidden />
              Change leverage
            </DropdownMenuItem>
            <DropdownMenuItem>
              <Copy aria-hidden />
              Copy login
            </DropdownMenuItem>
            <DropdownMenuSeparator />
            <DropdownMenuItem className="text-danger">
              <Trash2 aria-hidden className="text-danger!" />
              Disable trading
            </DropdownMenuItem>
          </DropdownMenuContent>
        </DropdownMenu>
      </Sample>
      <Sample title="Loading bar and placeholder">
        <div className="flex flex-wrap gap-2">
          <Button size="sm" variant="secondary" onClick={() => void trackActivity(() => new Promise((r) => setTimeout(r, 2500)))}>
            Run a 2.5 s call
          </Button>
          <Button size="sm" variant="secondary" onClick={() => setPlaceholder(true)}>
            Show 'Loading...' for 2 s
          </Button>
        </div>
        {placeholder ? (
          <div className="fixed inset-0 z-[150]">
            <PlaceholderFor2s onDone={hidePlaceholder} />
          </div>
        ) : null}
      </Sample>
    </div>
  );
}

function PlaceholderFor2s({ onDone }: { onDone: () => void }) {
  useEffect(() => {
    const timer = setTimeout(onDone, 2000);
    return () => clearTimeout(timer);
  }, [onDone]);
  return <FullScreenPlaceholder text="Loading..." />;
}
