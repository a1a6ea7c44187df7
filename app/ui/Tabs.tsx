import { useId, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { cn, focusRing } from "~/ui/cn";

export interface Tab<K extends string = string> {
  id: K;
  label: string;
  content: () => ReactNode;
}

/**
 * ARIA tabs (not links: they switch a panel), controlled by the caller (`selected`, `onSelect`:
 * a URL parameter, or local state as in `LocalTabs`): arrow keys, Home and End move between tabs
 * and select them; only the selected panel is rendered, so hidden tabs load nothing.
 */
export function Tabs<K extends string>({
  tabs,
  label,
  selected,
  onSelect,
}: {
  tabs: readonly Tab<K>[];
  label: string;
  selected: K;
  onSelect: (id: K) => void;
}) {
  const base = useId();
  const list = useRef<HTMLDivElement>(null);
  const current = tabs.find((t) => t.id === selected) ?? tabs[0];
  function onKeyDown(event: KeyboardEvent) {
    const index = tabs.findIndex((t) => t.id === current?.id);
    const to = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    const next = tabs[(to + tabs.length) % tabs.length];
    if (!next) return;
    onSelect(next.id);
    list.current?.querySelector<HTMLElement>(`#${CSS.escape(`${base}-tab-${next.id}`)}`)?.focus();
  }
  return (
    <div className="grid gap-3">
      <div ref={list} role="tablist" aria-label={label} className="flex gap-1 border-b border-border">
        {tabs.map((t) => {
          const active = t.id === current?.id;
          return (
            <button
              key={t.id}
              id={`${base}-tab-${t.id}`}
              type="button"
              role="tab"
              aria-selected={active}
              aria-controls={`${base}-panel-${t.id}`}
              tabIndex={active ? 0 : -1}
              onClick={() => onSelect(t.id)}
              onKeyDown={onKeyDown}
              className={cn(
                "-mb-px h-9 rounded-t-sm border-b-2 px-3 text-sm font-medium transition-colors",
                active ? "border-primary text-fg" : "border-transparent text-muted hover:text-fg",
                focusRing,
                "focus-visible:ring-offset-0",
              )}
            >
              {t.label}
            </button>
          );
        })}
      </div>
      {current ? (
        <div id={`${base}-panel-${current.id}`} role="tabpanel" aria-labelledby={`${base}-tab-${current.id}`}>
          {current.content()}
        </div>
      ) : null}
    </div>
  );
}

/** Tabs whose choice is the component's own (the first tab at first); the URL stays. */
export function LocalTabs({ tabs, label }: { tabs: readonly Tab[]; label: string }) {
  const [selected, setSelected] = useState(tabs[0]?.id ?? "");
  return <Tabs tabs={tabs} label={label} selected={selected} onSelect={setSelected} />;
}
