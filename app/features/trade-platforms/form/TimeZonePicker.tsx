import * as Popover from "@radix-ui/react-popover";
import { Check, ChevronDown, Search } from "lucide-react";
import { useId, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { cn, focusRing } from "~/ui/cn";
import { safeTimeZone, utcOffsetLabel } from "../ServerClock";
import { currentZoneName, filterTimeZones, timeZoneOptions, type TimeZoneOption } from "./timeZones";

let cached: TimeZoneOption[] | null = null;
/** Built once per page load (offsets read then are fine for choosing). */
const allZones = () => (cached ??= timeZoneOptions());

interface TimeZonePickerProps {
  value: string;
  onChange: (zone: string) => void;
  disabled?: boolean;
  /** Set by Field: the trigger is the labelled control. */
  id?: string;
  "aria-describedby"?: string;
  "aria-invalid"?: boolean;
}

/**
 * A searchable list of IANA time zones (a combobox: type to filter, arrows to move, Enter to
 * choose, Escape to close), grouped by region, each with its current UTC offset.
 */
export function TimeZonePicker({ value, onChange, disabled, id, ...aria }: TimeZonePickerProps) {
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const listId = useId();
  const list = useRef<HTMLDivElement>(null);
  const shown = useMemo(() => (open ? filterTimeZones(allZones(), query) : []), [open, query]);
  const offset = useMemo(() => (value && safeTimeZone(value) === value ? utcOffsetLabel(new Date(), value) : ""), [value]);

  function openWith(next: boolean) {
    setOpen(next);
    if (next) {
      setQuery("");
      // Start on the chosen zone, so arrows continue from it.
      const index = allZones().findIndex((o) => o.zone === currentZoneName(value));
      setActive(Math.max(0, index));
      requestAnimationFrame(() => scrollActiveIntoView(Math.max(0, index)));
    }
  }

  function scrollActiveIntoView(index: number) {
    list.current?.querySelector(`[data-index="${index}"]`)?.scrollIntoView({ block: "nearest" });
  }

  function choose(option: TimeZoneOption | undefined) {
    if (!option) return;
    onChange(option.zone);
    setOpen(false);
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    const move = (to: number) => {
      event.preventDefault();
      const next = Math.max(0, Math.min(shown.length - 1, to));
      setActive(next);
      scrollActiveIntoView(next);
    };
    if (event.key === "ArrowDown") move(active + 1);
    else if (event.key === "ArrowUp") move(active - 1);
    else if (event.key === "PageDown") move(active + 10);
    else if (event.key === "PageUp") move(active - 10);
    else if (event.key === "Home" && event.ctrlKey) move(0);
    else if (event.key === "End" && event.ctrlKey) move(shown.length - 1);
    else if (event.key === "Enter") {
      event.preventDefault();
      choose(shown[active]);
    }
  }

  const activeId = shown[active] ? `${listId}-${active}` : undefined;
  let lastRegion = "";

  return (
    <Popover.Root open={open} onOpenChange={openWith}>
      <Popover.Trigger
        id={id}
        type="button"
        disabled={disabled}
        aria-describedby={aria["aria-describedby"]}
        aria-invalid={aria["aria-invalid"]}
        className={cn(
          "flex h-9 w-full items-center justify-between gap-2 rounded-md border border-input bg-surface px-3 text-left text-sm text-fg shadow-xs",
          "disabled:cursor-not-allowed disabled:opacity-50 aria-[invalid=true]:border-danger",
          focusRing,
          "focus-visible:ring-offset-0",
        )}
      >
        <span className="min-w-0 truncate">
          {value || "Choose a time zone"}
          {offset ? <span className="ml-2 text-muted">{offset}</span> : null}
        </span>
        <ChevronDown aria-hidden className="size-4 shrink-0 text-muted" />
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content
          align="start"
          sideOffset={4}
          className="tb-pop z-50 w-(--radix-popover-trigger-width) min-w-72 overflow-hidden rounded-md border border-border bg-surface text-fg shadow-lg"
        >
          <div className="flex items-center gap-2 border-b border-border px-3">
            <Search aria-hidden className="size-4 text-muted" />
            <input
              role="combobox"
              aria-expanded
              aria-controls={listId}
              aria-activedescendant={activeId}
              aria-autocomplete="list"
              aria-label="Search time zones"
              placeholder="City, region or UTC offset"
              className="h-10 w-full bg-transparent text-sm outline-none placeholder:text-muted"
              value={query}
              onChange={(e) => {
                setQuery(e.target.value);
                setActive(0);
                if (list.current) list.current.scrollTop = 0;
              }}
              onKeyDown={onKeyDown}
            />
          </div>
          <div ref={list} id={listId} role="listbox" aria-label="Time zones" className="max-h-72 overflow-y-auto p-1">
            {shown.length === 0 ? <p className="px-2 py-6 text-center text-sm text-muted">No time zone matches “{query}”.</p> : null}
            {shown.map((o, index) => {
              const heading = o.region !== lastRegion ? o.region : null;
              lastRegion = o.region;
              // A zone saved under its old name ("Asia/Calcutta") is the same zone.
              const selected = o.zone === currentZoneName(value);
              return (
                <div key={o.zone}>
                  {heading ? (
                    <div aria-hidden className="px-2 pt-2 pb-1 text-[11px] font-semibold tracking-wider text-muted uppercase">
                      {heading}
                    </div>
                  ) : null}
                  {/* eslint-disable-next-line jsx-a11y/click-events-have-key-events, jsx-a11y/interactive-supports-focus -- combobox with aria-activedescendant: the search input keeps focus and handles the keys (WAI-ARIA APG); options are not focusable by design */}
                  <div
                    id={`${listId}-${index}`}
                    data-index={index}
                    role="option"
                    aria-selected={selected}
                    onPointerMove={() => setActive(index)}
                    onClick={() => choose(o)}
                    className={cn(
                      "relative flex h-8 cursor-default items-center gap-2 rounded-sm pr-8 pl-2 text-sm select-none",
                      index === active && "bg-subtle",
                    )}
                  >
                    <span className="min-w-0 flex-1 truncate">
                      {o.city}
                      {o.region !== "UTC" ? <span className="sr-only">, {o.region}</span> : null}
                    </span>
                    <span className="font-mono text-xs text-muted">{o.offset}</span>
                    {selected ? <Check aria-hidden className="absolute right-2 size-4 text-primary" /> : null}
                  </div>
                </div>
              );
            })}
          </div>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
